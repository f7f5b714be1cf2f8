// The official Program, Method, data loaders and FlatTensorDataMap as faces
// over etr::Program, etr::Method, etr's loaders and etr::FlatTensorDataMap.
// Official loaders and maps that do not wrap an etr one are bridged (etr
// reads them through their official virtual functions).
#include "runtime/executor/program.h"

#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/extension/flat_tensor/flat_tensor_data_map.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "devtools/etdump/etdump_observer.h"
#include "extension/compat/internal.h"
#include "extension/data_loader/file_data_loader.h"
#include "extension/data_loader/mmap_data_loader.h"
#include "extension/flat_tensor/flat_tensor_data_map.h"
#include "extension/module/module.h"
#include "runtime/executor/method.h"

namespace executorch {
namespace runtime {
namespace {

Error official(::etr::Error e) { return internal::to_official_error(static_cast<int>(e)); }

// Every official code has the same value in etr::Error.
::etr::Error to_etr(Error e) { return static_cast<::etr::Error>(static_cast<uint8_t>(e)); }

::etr::SegmentKind to_etr(DataLoader::SegmentInfo::Type t) {
  switch (t) {
    case DataLoader::SegmentInfo::Type::Program: return ::etr::SegmentKind::Program;
    case DataLoader::SegmentInfo::Type::Constant: return ::etr::SegmentKind::Constant;
    case DataLoader::SegmentInfo::Type::Backend: return ::etr::SegmentKind::Backend;
    case DataLoader::SegmentInfo::Type::Mutable: return ::etr::SegmentKind::Mutable;
    case DataLoader::SegmentInfo::Type::External: return ::etr::SegmentKind::External;
  }
  return ::etr::SegmentKind::Program;
}

DataLoader::SegmentInfo::Type to_official(::etr::SegmentKind k) {
  switch (k) {
    case ::etr::SegmentKind::Program: return DataLoader::SegmentInfo::Type::Program;
    case ::etr::SegmentKind::Constant: return DataLoader::SegmentInfo::Type::Constant;
    case ::etr::SegmentKind::Backend: return DataLoader::SegmentInfo::Type::Backend;
    case ::etr::SegmentKind::Mutable: return DataLoader::SegmentInfo::Type::Mutable;
    case ::etr::SegmentKind::External: return DataLoader::SegmentInfo::Type::External;
  }
  return DataLoader::SegmentInfo::Type::Program;
}

// An etr buffer handed out as an official one: the etr buffer moves to the
// heap and is released with the official one.
FreeableBuffer to_official(::etr::FreeableBuffer&& buffer) {
  if (buffer.data() == nullptr) return FreeableBuffer();
  auto* box = new ::etr::FreeableBuffer(std::move(buffer));
  return FreeableBuffer(
      box->data(), box->size(),
      [](void* context, void*, size_t) { delete static_cast<::etr::FreeableBuffer*>(context); },
      box);
}

// An official buffer handed to etr, the same way round.
::etr::FreeableBuffer to_etr(FreeableBuffer&& buffer) {
  auto* box = new FreeableBuffer(std::move(buffer));
  Result<const void*> data = box->data_safe();
  return ::etr::FreeableBuffer(
      data.ok() ? *data : nullptr, box->size(),
      [](void* context, const void*, size_t) { delete static_cast<FreeableBuffer*>(context); },
      box);
}

// An official DataLoader that wraps no etr loader, seen by etr.
class LoaderBridge final : public ::etr::DataLoader {
 public:
  explicit LoaderBridge(const runtime::DataLoader* loader) : loader_(loader) {}

  // The program read through this loader, once loaded: segment loads then
  // tell the official loader which segment they read, as upstream does.
  void set_program(const ::etr::Program* program) { program_ = program; }

  ::etr::Result<::etr::FreeableBuffer> load(size_t offset, size_t size,
                                            ::etr::SegmentKind kind) override {
    Result<FreeableBuffer> buffer = loader_->load(offset, size, segment_info(offset, size, kind));
    if (!buffer.ok()) return to_etr(buffer.error());
    ::etr::FreeableBuffer out = to_etr(std::move(*buffer));
    if (out.data() == nullptr && size != 0) {
      ETR_FAIL(::etr::Error::InvalidType,
               "data loader: load(%zu, %zu) returned a buffer without a data pointer", offset,
               size);
    }
    return out;
  }

  ::etr::Error load_into(size_t offset, size_t size, ::etr::SegmentKind kind, void* dst) override {
    const Error err = loader_->load_into(offset, size, segment_info(offset, size, kind), dst);
    // A loader without load_into: copy from load(), as etr's loaders do.
    if (err == Error::NotImplemented) return ::etr::DataLoader::load_into(offset, size, kind, dst);
    return to_etr(err);
  }

  ::etr::Result<size_t> size() const override {
    Result<size_t> size = loader_->size();
    if (!size.ok()) return to_etr(size.error());
    return *size;
  }

 private:
  // What upstream passes with a load: the kind and, for a segment of the
  // program, its index in Program.segments and, for a delegate's segment,
  // the id of the backend it is for.
  runtime::DataLoader::SegmentInfo segment_info(size_t offset, size_t size,
                                                ::etr::SegmentKind kind) const {
    using Info = runtime::DataLoader::SegmentInfo;
    if (program_ == nullptr || kind == ::etr::SegmentKind::Program) return Info(to_official(kind));
    ::etr::Result<size_t> index = program_->segment_index_at(offset, size);
    if (!index.ok()) return Info(to_official(kind));
    return Info(
        to_official(kind), *index,
        kind == ::etr::SegmentKind::Backend ? program_->delegate_id_of_segment(*index) : nullptr);
  }

  const runtime::DataLoader* loader_;
  const ::etr::Program* program_ = nullptr;
};

// An official DataLoader taken over and seen by etr: its own etr loader
// when it wraps one, else through a LoaderBridge.
class OwningLoader final : public ::etr::DataLoader {
 public:
  explicit OwningLoader(std::unique_ptr<runtime::DataLoader> loader)
      : owned_(std::move(loader)), bridge_(owned_.get()) {
    target_ = owned_->etr_loader();
    if (target_ == nullptr) target_ = &bridge_;
  }

  ::etr::Result<::etr::FreeableBuffer> load(size_t offset, size_t size,
                                            ::etr::SegmentKind kind) override {
    return target_->load(offset, size, kind);
  }
  ::etr::Error load_into(size_t offset, size_t size, ::etr::SegmentKind kind, void* dst) override {
    return target_->load_into(offset, size, kind, dst);
  }
  ::etr::Result<size_t> size() const override { return target_->size(); }

 private:
  std::unique_ptr<runtime::DataLoader> owned_;
  LoaderBridge bridge_;
  ::etr::DataLoader* target_ = nullptr;
};

// An official NamedDataMap that wraps no etr map, seen by etr.
class DataMapBridge final : public ::etr::NamedDataMap {
 public:
  explicit DataMapBridge(const runtime::NamedDataMap* map) : map_(map) {}

  ::etr::Result<::etr::FreeableBuffer> get_data(::etr::StringView key) const override {
    Result<FreeableBuffer> data = map_->get_data(std::string_view(key.data(), key.size()));
    if (!data.ok()) return to_etr(data.error());
    return to_etr(std::move(*data));
  }
  ::etr::Result<::etr::TensorLayout> get_layout(::etr::StringView key) const override {
    Result<const TensorLayout> layout =
        map_->get_tensor_layout(std::string_view(key.data(), key.size()));
    if (!layout.ok()) return to_etr(layout.error());
    return ::etr::TensorLayout{layout->scalar_type(), layout->sizes(), layout->dim_order()};
  }
  size_t num_keys() const override {
    Result<uint32_t> n = map_->get_num_keys();
    return n.ok() ? *n : 0;
  }
  ::etr::Result<const char*> key_at(size_t index) const override {
    if (index > UINT32_MAX) return ::etr::Error::InvalidArgument;
    Result<const char*> key = map_->get_key(static_cast<uint32_t>(index));
    if (!key.ok()) return to_etr(key.error());
    return *key;
  }

 private:
  const runtime::NamedDataMap* map_;
};

// An etr NamedDataMap (a program's own named data) seen as an official one.
class EtrDataMapFace final : public NamedDataMap {
 public:
  explicit EtrDataMapFace(const ::etr::NamedDataMap* map) : map_(map) {}

  Result<const TensorLayout> get_tensor_layout(std::string_view key) const override {
    ::etr::Result<::etr::TensorLayout> layout =
        map_->get_layout(::etr::StringView(key.data(), key.size()));
    if (!layout.ok()) return official(layout.error());
    return TensorLayout::create(layout->sizes, layout->dim_order, layout->dtype);
  }
  Result<FreeableBuffer> get_data(std::string_view key) const override {
    ::etr::Result<::etr::FreeableBuffer> data =
        map_->get_data(::etr::StringView(key.data(), key.size()));
    if (!data.ok()) return official(data.error());
    return to_official(std::move(*data));
  }
  Error load_data_into(std::string_view key, void* buffer, size_t size) const override {
    ET_CHECK_OR_RETURN_ERROR(buffer != nullptr || size == 0, InvalidArgument,
                             "load_data_into: null buffer");
    ::etr::Result<::etr::FreeableBuffer> data =
        map_->get_data(::etr::StringView(key.data(), key.size()));
    if (!data.ok()) return official(data.error());
    ET_CHECK_OR_RETURN_ERROR(size <= data->size(), InvalidArgument,
                             "load_data_into('%.*s'): %zu bytes asked, %zu stored",
                             static_cast<int>(key.size()), key.data(), size, data->size());
    if (size != 0) std::memcpy(buffer, data->data(), size);
    return Error::Ok;
  }
  Result<uint32_t> get_num_keys() const override { return static_cast<uint32_t>(map_->num_keys()); }
  Result<const char*> get_key(uint32_t index) const override {
    ::etr::Result<const char*> key = map_->key_at(index);
    if (!key.ok()) return official(key.error());
    return *key;
  }
  const ::etr::NamedDataMap* etr_map() const override { return map_; }

 private:
  const ::etr::NamedDataMap* map_;
};

}  // namespace

namespace internal {

FreeableBuffer to_official_buffer(::etr::FreeableBuffer&& buffer) {
  return to_official(std::move(buffer));
}

EValue face_of(const ::etr::EValue& v) {
  switch (v.tag()) {
    case ::etr::Tag::None: return EValue();
    case ::etr::Tag::Int: return EValue(v.to_int());
    case ::etr::Tag::Double: return EValue(v.to_double());
    case ::etr::Tag::Bool: return EValue(v.to_bool());
    case ::etr::Tag::String: return EValue(v.to_string().data(), v.to_string().size());
    case ::etr::Tag::Tensor: return EValue(executorch::aten::Tensor(v.tensor_ptr()));
    case ::etr::Tag::IntList: {
      const ::etr::Span<const int64_t> items = v.to_int_list();
      return EValue::int_list(std::vector<int64_t>(items.begin(), items.end()));
    }
    case ::etr::Tag::DoubleList: return EValue::double_list(v.to_double_list());
    case ::etr::Tag::BoolList: return EValue::bool_list(v.to_bool_list());
    case ::etr::Tag::TensorList: {
      const ::etr::BoxedTensorList& list = v.to_tensor_list();
      std::vector<executorch::aten::Tensor> items;
      for (size_t i = 0; i < list.size(); ++i) items.emplace_back(list.at(i));
      return EValue::tensor_list(std::move(items));
    }
    case ::etr::Tag::OptionalTensorList: {
      const ::etr::BoxedTensorList& list = v.to_tensor_list();
      std::vector<std::optional<executorch::aten::Tensor>> items;
      for (size_t i = 0; i < list.size(); ++i) {
        ::etr::Tensor* t = list.at(i);
        items.push_back(t == nullptr
                            ? std::nullopt
                            : std::optional<executorch::aten::Tensor>(executorch::aten::Tensor(t)));
      }
      return EValue::optional_tensor_list(std::move(items));
    }
  }
  return EValue();
}

}  // namespace internal

// ---- Program ---------------------------------------------------------------

struct Program::State {
  std::unique_ptr<LoaderBridge> bridge;
  // Shared with the Modules built over this program (and, for a Module's
  // program(), owned with the loader it reads from).
  std::shared_ptr<const ::etr::Program> program;
  // The program's named_data table, when it has one, as an official map.
  std::unique_ptr<EtrDataMapFace> named_data;
  // What a Program built from parts was given (kept with it).
  std::optional<FreeableBuffer> program_data;
  std::optional<FreeableBuffer> constant_segment_data;
  std::optional<internal::PteDataMap> pte_data_map;

  // Sets up what the official Program derives from the etr program.
  void attach(const executorch_flatbuffer::Program** internal_program) {
    if (program == nullptr) return;
    *internal_program =
        reinterpret_cast<const executorch_flatbuffer::Program*>(program->flatbuffer());
    if (program->has_named_data_table()) {
      named_data = std::make_unique<EtrDataMapFace>(&program->named_data());
    }
  }

  // True when the program has a method of that name.
  bool has_method(const char* name) const {
    for (size_t i = 0; i < program->num_methods(); ++i) {
      ::etr::Result<const char*> n = program->get_method_name(i);
      if (n.ok() && std::strcmp(*n, name) == 0) return true;
    }
    return false;
  }
};

Program::Program(std::unique_ptr<State> state) : state_(std::move(state)) {
  if (state_ != nullptr) state_->attach(&internal_program_);
}

Program::Program(DataLoader* loader, size_t segment_base_offset, FreeableBuffer&& program_data,
                 const executorch_flatbuffer::Program* internal_program,
                 FreeableBuffer&& constant_segment_data,
                 std::optional<internal::PteDataMap>&& pte_data_map)
    : state_(std::make_unique<State>()), internal_program_(internal_program) {
  state_->program_data.emplace(std::move(program_data));
  state_->constant_segment_data.emplace(std::move(constant_segment_data));
  if (pte_data_map.has_value()) state_->pte_data_map.emplace(std::move(*pte_data_map));
  // As in the official runtime, the loader is kept only when there is
  // segment data to read from it.
  ::etr::DataLoader* etr_loader = nullptr;
  if (loader != nullptr && segment_base_offset > 0) {
    etr_loader = loader->etr_loader();
    if (etr_loader == nullptr) {
      state_->bridge = std::make_unique<LoaderBridge>(loader);
      etr_loader = state_->bridge.get();
    }
  }
  if (internal_program != nullptr) {
    state_->program = std::make_shared<const ::etr::Program>(::etr::Program::over_flatbuffer(
        etr_loader, segment_base_offset,
        reinterpret_cast<const etr_fb::Program*>(internal_program)));
    if (state_->bridge != nullptr) state_->bridge->set_program(state_->program.get());
    state_->attach(&internal_program_);
  }
}
Program::Program(Program&&) noexcept = default;
Program::~Program() = default;

namespace internal {

std::shared_ptr<const ::etr::Program> etr_program_of(const std::shared_ptr<Program>& program) {
  if (program == nullptr || program->internal_state() == nullptr) return nullptr;
  // The etr program, kept alive with the official Program (and so with the
  // loader bridge it may read through).
  return std::shared_ptr<const ::etr::Program>(program, program->internal_state()->program.get());
}

std::unique_ptr<::etr::DataLoader> etr_loader_owning(std::unique_ptr<DataLoader> loader) {
  if (loader == nullptr) return nullptr;
  return std::make_unique<OwningLoader>(std::move(loader));
}

std::shared_ptr<Program> program_over(std::shared_ptr<const ::etr::Program> program) {
  if (program == nullptr) return nullptr;
  auto state = std::make_unique<Program::State>();
  state->program = std::move(program);
  return std::make_shared<Program>(std::move(state));
}

}  // namespace internal

Result<Program> Program::load(DataLoader* loader, Verification verification) {
  (void)verification;
  ET_CHECK_OR_RETURN_ERROR(loader != nullptr, InvalidArgument, "Program::load: null loader");
  auto state = std::make_unique<State>();
  ::etr::DataLoader* etr_loader = loader->etr_loader();
  if (etr_loader == nullptr) {
    state->bridge = std::make_unique<LoaderBridge>(loader);
    etr_loader = state->bridge.get();
  }
  ::etr::Result<::etr::Program> program =
      ::etr::Program::load(etr_loader, ::etr::Program::Verification::Full);
  if (!program.ok()) return official(program.error());
  state->program = std::make_shared<const ::etr::Program>(std::move(*program));
  if (state->bridge != nullptr) state->bridge->set_program(state->program.get());
  return Program(std::move(state));
}

// The etr program behind `program`'s state; null for a Program built from
// parts without a flatbuffer (or moved from).
#define ETR_COMPAT_PROGRAM_OR_RETURN(what)                                                \
  ET_CHECK_OR_RETURN_ERROR(state_ != nullptr && state_->program != nullptr, InvalidState, \
                           "%s: the Program has no program data", what)

Result<const void*> Program::get_constant_buffer_data(size_t buffer_idx, size_t nbytes) const {
  ETR_COMPAT_PROGRAM_OR_RETURN("get_constant_buffer_data");
  ET_CHECK_OR_RETURN_ERROR(buffer_idx <= UINT32_MAX, InvalidArgument,
                           "constant buffer %zu out of range", buffer_idx);
  ::etr::Result<const void*> data =
      state_->program->constant_data(static_cast<uint32_t>(buffer_idx), nbytes);
  if (!data.ok()) {
    // etr reports a request outside the stored constants as InvalidProgram
    // (a method's tensor asked for it); here the caller asked: the official
    // runtime's InvalidArgument.
    return data.error() == ::etr::Error::InvalidProgram ? Error::InvalidArgument
                                                        : official(data.error());
  }
  return *data;
}

Result<const NamedDataMap*> Program::get_named_data_map() const {
  ETR_COMPAT_PROGRAM_OR_RETURN("get_named_data_map");
  if (state_->named_data == nullptr) return Error::NotFound;
  return static_cast<const NamedDataMap*>(state_->named_data.get());
}

Result<const char*> Program::get_output_flattening_encoding(const char* method_name) const {
  ETR_COMPAT_PROGRAM_OR_RETURN("get_output_flattening_encoding");
  ET_CHECK_OR_RETURN_ERROR(method_name != nullptr, InvalidArgument,
                           "get_output_flattening_encoding: null name");
  ::etr::Result<const char*> encoding = state_->program->output_flattening_encoding(method_name);
  if (!encoding.ok()) {
    // The official runtime reports an unknown method as InvalidArgument.
    return encoding.error() == ::etr::Error::NotFound ? Error::InvalidArgument
                                                      : official(encoding.error());
  }
  return *encoding;
}

Error Program::get_backend_delegate_data(size_t index, const void** out_data,
                                         size_t* out_size) const {
  ETR_COMPAT_PROGRAM_OR_RETURN("get_backend_delegate_data");
  ET_CHECK_OR_RETURN_ERROR(out_data != nullptr && out_size != nullptr, InvalidArgument,
                           "get_backend_delegate_data: null output");
  ::etr::Result<::etr::Span<const uint8_t>> data = state_->program->inline_delegate_data(index);
  if (!data.ok()) return official(data.error());
  *out_data = data->data();
  *out_size = data->size();
  return Error::Ok;
}

Result<FreeableBuffer> Program::LoadSegment(const DataLoader::SegmentInfo& segment_info) const {
  ETR_COMPAT_PROGRAM_OR_RETURN("LoadSegment");
  ::etr::Result<::etr::FreeableBuffer> segment = state_->program->load_segment_at(
      segment_info.segment_index, to_etr(segment_info.segment_type));
  if (!segment.ok()) return official(segment.error());
  return to_official(std::move(*segment));
}

Error Program::load_mutable_subsegment_into(size_t mutable_data_segments_index, size_t offset_index,
                                            size_t size, void* buffer) const {
  ETR_COMPAT_PROGRAM_OR_RETURN("load_mutable_subsegment_into");
  ET_CHECK_OR_RETURN_ERROR(buffer != nullptr || size == 0, InvalidArgument,
                           "load_mutable_subsegment_into: null buffer");
  return official(state_->program->load_mutable_data_into(mutable_data_segments_index, offset_index,
                                                          size, buffer));
}

size_t Program::num_methods() const {
  return state_ != nullptr && state_->program != nullptr ? state_->program->num_methods() : 0;
}

Result<const char*> Program::get_method_name(size_t method_index) const {
  ETR_COMPAT_PROGRAM_OR_RETURN("get_method_name");
  ::etr::Result<const char*> name = state_->program->get_method_name(method_index);
  if (!name.ok()) return official(name.error());
  return *name;
}

Result<MethodMeta> Program::method_meta(const char* method_name) const {
  ETR_COMPAT_PROGRAM_OR_RETURN("method_meta");
  ET_CHECK_OR_RETURN_ERROR(method_name != nullptr, InvalidArgument, "method_meta: null name");
  ::etr::Result<::etr::MethodMeta> meta = state_->program->method_meta(method_name);
  if (!meta.ok()) {
    // The official runtime reports an unknown method as InvalidArgument.
    return meta.error() == ::etr::Error::NotFound ? Error::InvalidArgument : official(meta.error());
  }
  return MethodMeta(*meta);
}

Program::HeaderStatus Program::check_header(const void* data, size_t size) {
  if (data == nullptr || size < kMinHeadBytes) return ShortData;
  const char* id = static_cast<const char*>(data) + 4;
  if (std::memcmp(id, "ET12", 4) == 0) return CompatibleVersion;
  const bool digits = id[2] >= '0' && id[2] <= '9' && id[3] >= '0' && id[3] <= '9';
  if (id[0] == 'E' && id[1] == 'T' && digits) return IncompatibleVersion;
  return NotPresent;
}

namespace internal {

EventTracer*& active_event_tracer() {
  thread_local EventTracer* tracer = nullptr;
  return tracer;
}

}  // namespace internal

namespace {

// Feeds an official EventTracer from etr's ExecuteObserver hooks, with the
// calls the official runtime makes, so a tracer sees the same sequence:
// load_method: block "Default", "Method::init" inside "Program::load_method";
// execute: block "Execute", per kernel call "OPERATOR_CALL" around
// "native_call_<op>" (outputs logged first, at kIntermediateOutputs), per
// delegate call "DELEGATE_CALL" (every argument logged first), then
// "Method::execute" and the method's outputs (from kProgramOutputs on).
class TracerBridge final : public ::etr::ExecuteObserver {
 public:
  explicit TracerBridge(EventTracer* tracer) : t_(tracer) {}

  void on_load_begin(const char* method, ::etr::LoadPhase phase) override {
    (void)method;
    if (phase == ::etr::LoadPhase::LoadMethod) {
      internal::active_event_tracer() = t_;  // official delegates' init sees it
      t_->create_event_block("Default");
      load_ = t_->start_profiling("Program::load_method");
    } else {
      init_ = t_->start_profiling("Method::init");
    }
  }
  void on_load_end(const char* method, ::etr::LoadPhase phase, ::etr::Error status) override {
    (void)method;
    (void)status;
    t_->end_profiling(phase == ::etr::LoadPhase::LoadMethod ? load_ : init_);
    if (phase == ::etr::LoadPhase::LoadMethod) internal::active_event_tracer() = nullptr;
  }
  void on_execute_begin(const ::etr::Method& method) override {
    (void)method;
    t_->create_event_block("Execute");
    execute_ = t_->start_profiling("Method::execute");
  }
  void on_execute_end(const ::etr::Method& method, ::etr::Error status) override {
    t_->end_profiling(execute_);
    if (status != ::etr::Error::Ok ||
        t_->event_tracer_debug_level() < EventTracerDebugLogLevel::kProgramOutputs) {
      return;
    }
    for (size_t i = 0; i < method.outputs_size(); ++i) {
      const EValue out = internal::face_of(method.get_output(i));
      t_->log_evalue(out, LoggedEValueType::kProgramOutput);
    }
  }
  void on_begin(const ::etr::InstructionEvent& e) override {
    const auto chain = static_cast<ChainID>(e.chain);
    const auto handle = static_cast<DebugHandle>(e.instruction);
    t_->set_chain_debug_handle(chain, handle);
    all_events_ =
        t_->event_tracer_profiling_level() > EventTracerProfilingLevel::kProfileMethodOnly;
    const bool kernel = e.kind == ::etr::InstructionEvent::Kind::Kernel;
    wrapped_ = kernel && ::etr::etdump::has_native_call_event(e.name);
    if (!kernel) internal::active_event_tracer() = t_;  // official delegates log into it
    if (!all_events_) return;
    outer_ = t_->start_profiling(kernel ? "OPERATOR_CALL" : "DELEGATE_CALL", chain, handle);
    if (wrapped_) {
      inner_name_ = ::etr::etdump::native_call_name(e.name);
      inner_ = t_->start_profiling(inner_name_.c_str(), chain, handle);
    }
  }
  void on_end(const ::etr::InstructionEvent& e, ::etr::Error status) override {
    const bool kernel = e.kind == ::etr::InstructionEvent::Kind::Kernel;
    if (status == ::etr::Error::Ok && (wrapped_ || !kernel) &&
        t_->event_tracer_debug_level() >= EventTracerDebugLogLevel::kIntermediateOutputs) {
      // A kernel's outputs; a delegate's every argument.
      for (size_t i = kernel ? ::etr::etdump::first_kernel_output(e.args) : 0; i < e.args.size();
           ++i) {
        EValue v = internal::face_of(*e.args[i]);
        t_->log_evalue(v, LoggedEValueType::kIntermediateOutput);
      }
    }
    if (all_events_) {
      if (wrapped_) t_->end_profiling(inner_);
      t_->end_profiling(outer_);
    }
    t_->set_chain_debug_handle(kUnsetChainId, kUnsetDebugHandle);
    internal::active_event_tracer() = nullptr;
  }

 private:
  EventTracer* t_;
  EventTracerEntry load_{}, init_{}, execute_{}, outer_{}, inner_{};
  std::string inner_name_;
  bool all_events_ = true;
  bool wrapped_ = false;
};

}  // namespace

struct Method::State {
  // The method-local kernel registry (null: the global one), kept for the
  // method's life.
  std::unique_ptr<internal::MethodKernels> kernels;
  std::optional<::etr::MemoryManager> memory;
  std::unique_ptr<DataMapBridge> map_bridge;
  const ::etr::NamedDataMap* maps[1] = {nullptr};
  std::optional<::etr::Method> method;
  EventTracer* tracer = nullptr;
  std::unique_ptr<TracerBridge> bridge;  // feeds `tracer` (when one is given)
  // Load-time backend options as etr options (kept for the method's life).
  std::vector<::etr::BackendOption> backend_options;
  std::vector<::etr::DelegateOptions> delegate_options;
  // The faces handed out by get_input/get_output (refreshed on each call).
  std::vector<EValue> inputs;
  std::vector<EValue> outputs;
  uint32_t id = 0;  // Method::id()
};

namespace {
// The next Method::id(); each load_method takes one.
std::atomic<uint32_t> next_method_id{1};
}  // namespace

Result<Method> Program::load_method(const char* method_name, MemoryManager* memory_manager,
                                    EventTracer* event_tracer, const NamedDataMap* named_data_map,
                                    const LoadBackendOptionsMap* backend_options,
                                    Span<const Kernel> kernel_registry) const {
  return internal::load_method_on(*this, nullptr, method_name, memory_manager, event_tracer,
                                  named_data_map, backend_options, kernel_registry);
}

namespace internal {

Result<Method> load_method_on(const Program& program, ::etr::ThreadPool* thread_pool,
                              const char* method_name, MemoryManager* memory_manager,
                              EventTracer* event_tracer, const NamedDataMap* named_data_map,
                              const LoadBackendOptionsMap* backend_options,
                              Span<const Kernel> kernel_registry) {
  const Program::State* program_state = program.internal_state();
  ET_CHECK_OR_RETURN_ERROR(program_state != nullptr && program_state->program != nullptr,
                           InvalidState, "load_method: the Program has no program data");
  ET_CHECK_OR_RETURN_ERROR(method_name != nullptr, InvalidArgument, "load_method: null name");
  ET_CHECK_OR_RETURN_ERROR(memory_manager != nullptr, InvalidArgument,
                           "load_method: null memory manager");
  ET_CHECK_OR_RETURN_ERROR(program_state->has_method(method_name), InvalidArgument,
                           "No method named '%s' in program", method_name);
  // The kernels and backends linked into this build (once per process).
  const ::etr::Error registered = ::etr::register_builtins();
  if (registered != ::etr::Error::Ok) return official(registered);
  // Kernels registered through the official API (register_kernels).
  const Error flushed = internal::flush_official_kernels();
  if (flushed != Error::Ok) return flushed;
  auto state = std::make_unique<Method::State>();
  if (kernel_registry.size() != 0) {
    // The method's own registry: its kernels over the global ones.
    Result<std::unique_ptr<MethodKernels>> kernels =
        make_method_kernels(kernel_registry, method_name);
    if (!kernels.ok()) return kernels.error();
    state->kernels = std::move(*kernels);
  }
  HierarchicalAllocator* planned = memory_manager->planned_memory();
  state->memory.emplace(memory_manager->method_allocator(),
                        planned != nullptr ? planned->etr_allocator() : nullptr,
                        memory_manager->temp_allocator());
  ::etr::MethodLoadOptions options;
  options.thread_pool = thread_pool;
  if (event_tracer != nullptr) {
    // The official runtime runs each instruction on its own: no fused calls,
    // so the tracer sees every operator of the program.
    state->bridge = std::make_unique<TracerBridge>(event_tracer);
    options.observer = state->bridge.get();
    options.kernel_fusion = false;
  }
  if (named_data_map != nullptr) {
    const ::etr::NamedDataMap* map = named_data_map->etr_map();
    if (map == nullptr) {
      state->map_bridge = std::make_unique<DataMapBridge>(named_data_map);
      map = state->map_bridge.get();
    }
    state->maps[0] = map;
    options.external_data = ::etr::Span<const ::etr::NamedDataMap* const>(state->maps, 1);
  }
  if (backend_options != nullptr) {
    // Each backend's options as etr options (string values point into the
    // caller's arrays, which outlive the load).
    std::vector<size_t> begins;
    for (size_t b = 0; b < backend_options->size(); ++b) {
      begins.push_back(state->backend_options.size());
      for (const BackendOption& o : backend_options->entry_at(b).options) {
        if (const bool* v = std::get_if<bool>(&o.value)) {
          state->backend_options.push_back(::etr::BackendOption::of(o.key, *v));
        } else if (const int* i = std::get_if<int>(&o.value)) {
          state->backend_options.push_back(::etr::BackendOption::of(o.key, *i));
        } else if (auto* text = std::get_if<std::array<char, kMaxOptionValueLength>>(&o.value)) {
          state->backend_options.push_back(
              ::etr::BackendOption::of(o.key, static_cast<const char*>(text->data())));
        }
      }
    }
    begins.push_back(state->backend_options.size());
    for (size_t b = 0; b < backend_options->size(); ++b) {
      state->delegate_options.push_back(::etr::DelegateOptions{
          backend_options->entry_at(b).backend_id,
          ::etr::Span<const ::etr::BackendOption>(state->backend_options.data() + begins[b],
                                                  begins[b + 1] - begins[b])});
    }
    options.delegate_options = ::etr::Span<const ::etr::DelegateOptions>(
        state->delegate_options.data(), state->delegate_options.size());
  }
  if (state->kernels != nullptr) {
    options.kernels = &state->kernels->registry;
    // A fused kernel would stand in for calls of the method's own kernels.
    options.kernel_fusion = false;
  }
  const MethodKernelsScope kernels_scope(state->kernels.get());
  ::etr::Result<::etr::Method> method =
      program_state->program->load_method(method_name, &*state->memory, options);
  if (!method.ok()) return official(method.error());
  state->method.emplace(std::move(*method));
  state->tracer = event_tracer;
  state->id = next_method_id.fetch_add(1, std::memory_order_relaxed);
  state->inputs.resize(state->method->inputs_size());
  state->outputs.resize(state->method->outputs_size());
  return Method(std::move(state));
}

}  // namespace internal

// ---- Method ----------------------------------------------------------------

Method::Method(std::unique_ptr<State> state) : state_(std::move(state)) {}
Method::Method(Method&& rhs) noexcept = default;
Method::~Method() = default;

// A Method that was moved from holds no state: its calls fail (or, for the
// accessors the official runtime checks with ET_CHECK, abort) instead of
// reaching a null method.
#define ETR_COMPAT_METHOD_LOADED(code, what) \
  ET_CHECK_OR_RETURN_ERROR(state_ != nullptr, code, "%s: the Method was moved from", what)

Error Method::set_input(const EValue& input_evalue, size_t input_idx) {
  ETR_COMPAT_METHOD_LOADED(InvalidState, "set_input");
  ET_CHECK_OR_RETURN_ERROR(input_idx < inputs_size(), InvalidArgument,
                           "Input index (%zu) must be less than the number of inputs in method "
                           "(%zu).",
                           input_idx, inputs_size());
  ::etr::Method& m = *state_->method;
  switch (input_evalue.tag) {
    case Tag::Tensor: {
      const executorch::aten::Tensor& t = input_evalue.toTensor();
      ET_CHECK_OR_RETURN_ERROR(t.unsafeGetTensorImpl() != nullptr, InvalidArgument,
                               "set_input(%zu): the tensor is empty", input_idx);
      // As upstream, a tensor without data for a memory-planned input sets
      // its shape and leaves the planned buffer's bytes as they are (nothing
      // to copy); etr is given a view of the same shape over that buffer.
      const ::etr::EValue& slot = m.get_input(input_idx);
      if (t.const_data_ptr() == nullptr && slot.is_tensor() &&
          slot.to_tensor().const_data() != nullptr) {
        Result<TensorInfo> info = method_meta().input_tensor_meta(input_idx);
        if (info.ok() && info->is_memory_planned()) {
          ::etr::Tensor view = *t.unsafeGetTensorImpl();
          view.set_data(slot.to_tensor().mutable_data(), slot.to_tensor().capacity_bytes());
          return official(m.set_input(view, input_idx));
        }
      }
      return official(m.set_input(*t.unsafeGetTensorImpl(), input_idx));
    }
    case Tag::None: return official(m.set_input(::etr::EValue(), input_idx));
    case Tag::Int: return official(m.set_input(::etr::EValue(input_evalue.toInt()), input_idx));
    case Tag::Double:
      return official(m.set_input(::etr::EValue(input_evalue.toDouble()), input_idx));
    case Tag::Bool: return official(m.set_input(::etr::EValue(input_evalue.toBool()), input_idx));
    case Tag::String: {
      const std::string_view s = input_evalue.toString();
      return official(m.set_input(::etr::EValue(::etr::StringView(s.data(), s.size())), input_idx));
    }
    default: break;
  }
  ET_LOG(Error, "set_input(%zu): unsupported input tag %u", input_idx,
         static_cast<unsigned>(input_evalue.tag));
  return Error::InvalidArgument;
}

Error Method::set_inputs(const executorch::aten::ArrayRef<EValue>& input_evalues) {
  ETR_COMPAT_METHOD_LOADED(InvalidState, "set_inputs");
  ET_CHECK_OR_RETURN_ERROR(input_evalues.size() == inputs_size(), InvalidArgument,
                           "The number of inputs (%zu) does not match the method's (%zu).",
                           input_evalues.size(), inputs_size());
  for (size_t i = 0; i < input_evalues.size(); ++i) {
    const Error err = set_input(input_evalues[i], i);
    if (err != Error::Ok) return err;
  }
  return Error::Ok;
}

Error Method::set_output_data_ptr(void* buffer, size_t size, size_t output_idx) {
  ETR_COMPAT_METHOD_LOADED(InvalidState, "set_output_data_ptr");
  return official(state_->method->set_output_data_ptr(buffer, size, output_idx));
}

Error Method::get_outputs(EValue* output_evalues, size_t length) {
  ETR_COMPAT_METHOD_LOADED(InvalidState, "get_outputs");
  ET_CHECK_OR_RETURN_ERROR(length >= outputs_size(), InvalidArgument,
                           "The given array is not large enough to hold all outputs.");
  ET_CHECK_OR_RETURN_ERROR(output_evalues != nullptr || outputs_size() == 0, InvalidArgument,
                           "get_outputs: null array");
  for (size_t i = 0; i < outputs_size(); ++i) output_evalues[i] = get_output(i);
  for (size_t i = outputs_size(); i < length; ++i) output_evalues[i] = EValue();
  return Error::Ok;
}

Error Method::get_inputs(EValue* input_evalues, size_t length) {
  ETR_COMPAT_METHOD_LOADED(InvalidState, "get_inputs");
  ET_CHECK_OR_RETURN_ERROR(length >= inputs_size(), InvalidArgument,
                           "The given array is not large enough to hold all inputs.");
  ET_CHECK_OR_RETURN_ERROR(input_evalues != nullptr || inputs_size() == 0, InvalidArgument,
                           "get_inputs: null array");
  for (size_t i = 0; i < inputs_size(); ++i) {
    input_evalues[i] = internal::face_of(state_->method->get_input(i));
  }
  for (size_t i = inputs_size(); i < length; ++i) input_evalues[i] = EValue();
  return Error::Ok;
}

Result<executorch::aten::Tensor> Method::get_attribute(std::string_view name) {
  ETR_COMPAT_METHOD_LOADED(InvalidState, "get_attribute");
  ::etr::Result<size_t> index =
      state_->method->method_meta().attribute_value_index(name.data(), name.size());
  if (!index.ok()) return official(index.error());
  const ::etr::EValue& value = state_->method->value(*index);
  ET_CHECK_OR_RETURN_ERROR(
      value.is_tensor(), Internal, "get_attribute('%.*s'): value %zu is not a tensor",
      static_cast<int>(name.size() < 256 ? name.size() : 256), name.data(), *index);
  EValue face = internal::face_of(value);
  return face.toTensor();
}

Error Method::execute() {
  ETR_COMPAT_METHOD_LOADED(NotSupported, "execute");
  // The official runtime's own check and error code (etr's execute reports
  // the same condition as InvalidState).
  for (size_t i = 0; i < inputs_size(); ++i) {
    ET_CHECK_OR_RETURN_ERROR(state_->method->input_set(i), InvalidArgument,
                             "Input %zu has not been set.", i);
  }
  return official(state_->method->execute());
}

MethodMeta Method::method_meta() const {
  ET_CHECK_MSG(state_ != nullptr, "method_meta: the Method was moved from");
  return MethodMeta(state_->method->method_meta());
}
size_t Method::inputs_size() const { return state_ != nullptr ? state_->method->inputs_size() : 0; }
size_t Method::outputs_size() const {
  return state_ != nullptr ? state_->method->outputs_size() : 0;
}
uint32_t Method::id() const { return state_ != nullptr ? state_->id : 0; }

const EValue& Method::get_output(size_t i) const {
  ET_CHECK_MSG(i < outputs_size(), "%zu >= %zu", i, outputs_size());
  state_->outputs[i] = internal::face_of(state_->method->get_output(i));
  return state_->outputs[i];
}

EventTracer* Method::get_event_tracer() { return state_ != nullptr ? state_->tracer : nullptr; }

const EValue& Method::get_input(size_t i) const {
  ET_CHECK_MSG(i < inputs_size(), "%zu >= %zu", i, inputs_size());
  state_->inputs[i] = internal::face_of(state_->method->get_input(i));
  return state_->inputs[i];
}

EValue& Method::mutable_input(size_t i) {
  ET_CHECK_MSG(i < inputs_size(), "%zu >= %zu", i, inputs_size());
  state_->inputs[i] = internal::face_of(state_->method->get_input(i));
  return state_->inputs[i];
}

EValue& Method::mutable_output(size_t i) {
  ET_CHECK_MSG(i < outputs_size(), "%zu >= %zu", i, outputs_size());
  state_->outputs[i] = internal::face_of(state_->method->get_output(i));
  return state_->outputs[i];
}

// ---- MethodMeta (the parts the Module layer did not need) ------------------

Result<etensor::Device> MethodMeta::memory_planned_buffer_device(size_t index) const {
  ET_CHECK_OR_RETURN_ERROR(index < num_memory_planned_buffers(), InvalidArgument,
                           "index %zu out of range. num_memory_planned_buffers: %zu", index,
                           num_memory_planned_buffers());
  return etensor::Device(etensor::DeviceType::CPU, 0);
}

Result<TensorInfo> MethodMeta::attribute_tensor_meta(size_t index) const {
  auto r = meta_.attribute_tensor_meta(index);
  if (!r.ok()) return official(r.error());
  return TensorInfo(*r);
}

Result<TensorInfo> TensorInfo::create(Span<const int32_t> sizes, Span<const uint8_t> dim_order,
                                      executorch::aten::ScalarType scalar_type,
                                      bool is_memory_planned, std::string_view name) {
  ::etr::TensorInfo info;
  info.dtype = scalar_type;
  info.sizes = sizes;
  info.dim_order = dim_order;
  info.is_memory_planned = is_memory_planned;
  info.is_dynamic = false;
  info.name = name.data();
  info.name_size = name.size();
  size_t nbytes = ::etr::element_size(scalar_type);
  for (int32_t s : sizes) {
    ET_CHECK_MSG(s >= 0 && !__builtin_mul_overflow(nbytes, static_cast<size_t>(s), &nbytes),
                 "TensorInfo: size %" PRId32 " makes nbytes overflow", s);
  }
  info.nbytes = nbytes;
  return TensorInfo(info);
}

}  // namespace runtime

// ---- extension/data_loader, extension/flat_tensor --------------------------

namespace extension {

using runtime::Error;
using runtime::FreeableBuffer;
using runtime::Result;

struct FileDataLoader::State {
  std::optional<::etr::FileDataLoader> loader;
};

FileDataLoader::FileDataLoader(std::unique_ptr<State> state) : state_(std::move(state)) {}
FileDataLoader::FileDataLoader(FileDataLoader&& rhs) noexcept = default;
FileDataLoader::~FileDataLoader() = default;

Result<FileDataLoader> FileDataLoader::from(const char* file_name, size_t alignment) {
  ET_CHECK_OR_RETURN_ERROR(alignment != 0 && (alignment & (alignment - 1)) == 0, InvalidArgument,
                           "Alignment %zu is not a power of 2", alignment);
  ET_CHECK_OR_RETURN_ERROR(file_name != nullptr, InvalidArgument, "null file name");
  // etr needs 16-byte aligned program bytes; a stricter alignment is still valid.
  ::etr::Result<::etr::FileDataLoader> loader =
      ::etr::FileDataLoader::from(file_name, alignment < 16 ? 16 : alignment);
  if (!loader.ok()) {
    return runtime::internal::to_official_error(static_cast<int>(loader.error()));
  }
  auto state = std::make_unique<State>();
  state->loader.emplace(std::move(*loader));
  return FileDataLoader(std::move(state));
}

Result<FreeableBuffer> FileDataLoader::load(size_t offset, size_t size,
                                            const DataLoader::SegmentInfo& segment_info) const {
  ET_CHECK_OR_RETURN_ERROR(state_ != nullptr, InvalidState, "FileDataLoader was moved from");
  ::etr::Result<::etr::FreeableBuffer> buffer =
      state_->loader->load(offset, size, runtime::to_etr(segment_info.segment_type));
  if (!buffer.ok()) return runtime::internal::to_official_error(static_cast<int>(buffer.error()));
  return runtime::to_official(std::move(*buffer));
}

Result<size_t> FileDataLoader::size() const {
  ET_CHECK_OR_RETURN_ERROR(state_ != nullptr, InvalidState, "FileDataLoader was moved from");
  return *state_->loader->size();
}

Error FileDataLoader::load_into(size_t offset, size_t size, const SegmentInfo& segment_info,
                                void* buffer) const {
  ET_CHECK_OR_RETURN_ERROR(state_ != nullptr, InvalidState, "FileDataLoader was moved from");
  ET_CHECK_OR_RETURN_ERROR(buffer != nullptr, InvalidArgument, "Destination buffer cannot be null");
  return runtime::internal::to_official_error(static_cast<int>(
      state_->loader->load_into(offset, size, runtime::to_etr(segment_info.segment_type), buffer)));
}

::etr::DataLoader* FileDataLoader::etr_loader() const {
  return state_ != nullptr ? &*state_->loader : nullptr;
}

struct MmapDataLoader::State {
  std::optional<::etr::MmapDataLoader> loader;
};

MmapDataLoader::MmapDataLoader(std::unique_ptr<State> state) : state_(std::move(state)) {}
MmapDataLoader::MmapDataLoader(MmapDataLoader&& rhs) noexcept = default;
MmapDataLoader::~MmapDataLoader() = default;

Result<MmapDataLoader> MmapDataLoader::from(const char* file_name, MlockConfig mlock_config) {
  ET_CHECK_OR_RETURN_ERROR(file_name != nullptr, InvalidArgument, "null file name");
  const ::etr::MmapDataLoader::Mlock mlock = mlock_config == MlockConfig::UseMlock
                                                 ? ::etr::MmapDataLoader::Mlock::Lock
                                             : mlock_config == MlockConfig::UseMlockIgnoreErrors
                                                 ? ::etr::MmapDataLoader::Mlock::LockIgnoreErrors
                                                 : ::etr::MmapDataLoader::Mlock::None;
  ::etr::Result<::etr::MmapDataLoader> loader = ::etr::MmapDataLoader::from(file_name, mlock);
  if (!loader.ok()) {
    return runtime::internal::to_official_error(static_cast<int>(loader.error()));
  }
  auto state = std::make_unique<State>();
  state->loader.emplace(std::move(*loader));
  return MmapDataLoader(std::move(state));
}

Result<FreeableBuffer> MmapDataLoader::load(size_t offset, size_t size,
                                            const DataLoader::SegmentInfo& segment_info) const {
  ET_CHECK_OR_RETURN_ERROR(state_ != nullptr, InvalidState, "MmapDataLoader was moved from");
  ::etr::Result<::etr::FreeableBuffer> buffer =
      state_->loader->load(offset, size, runtime::to_etr(segment_info.segment_type));
  if (!buffer.ok()) return runtime::internal::to_official_error(static_cast<int>(buffer.error()));
  return runtime::to_official(std::move(*buffer));
}

Result<size_t> MmapDataLoader::size() const {
  ET_CHECK_OR_RETURN_ERROR(state_ != nullptr, InvalidState, "MmapDataLoader was moved from");
  return *state_->loader->size();
}

Error MmapDataLoader::load_into(size_t offset, size_t size, const SegmentInfo& segment_info,
                                void* buffer) const {
  ET_CHECK_OR_RETURN_ERROR(state_ != nullptr, InvalidState, "MmapDataLoader was moved from");
  ET_CHECK_OR_RETURN_ERROR(buffer != nullptr, InvalidArgument, "Destination buffer cannot be null");
  return runtime::internal::to_official_error(static_cast<int>(
      state_->loader->load_into(offset, size, runtime::to_etr(segment_info.segment_type), buffer)));
}

::etr::DataLoader* MmapDataLoader::etr_loader() const {
  return state_ != nullptr ? &*state_->loader : nullptr;
}

struct FlatTensorDataMap::State {
  std::unique_ptr<runtime::LoaderBridge> bridge;
  std::optional<::etr::FlatTensorDataMap> map;
};

FlatTensorDataMap::FlatTensorDataMap(std::unique_ptr<State> state) : state_(std::move(state)) {}
FlatTensorDataMap::FlatTensorDataMap(FlatTensorDataMap&&) noexcept = default;
FlatTensorDataMap::~FlatTensorDataMap() = default;

Result<FlatTensorDataMap> FlatTensorDataMap::load(runtime::DataLoader* loader) {
  ET_CHECK_OR_RETURN_ERROR(loader != nullptr, InvalidArgument, "FlatTensorDataMap: null loader");
  auto state = std::make_unique<State>();
  ::etr::DataLoader* etr_loader = loader->etr_loader();
  if (etr_loader == nullptr) {
    state->bridge = std::make_unique<runtime::LoaderBridge>(loader);
    etr_loader = state->bridge.get();
  }
  ::etr::Result<::etr::FlatTensorDataMap> map = ::etr::FlatTensorDataMap::load(etr_loader);
  if (!map.ok()) return runtime::internal::to_official_error(static_cast<int>(map.error()));
  state->map.emplace(std::move(*map));
  return FlatTensorDataMap(std::move(state));
}

Result<const runtime::TensorLayout> FlatTensorDataMap::get_tensor_layout(
    std::string_view key) const {
  ::etr::Result<::etr::TensorLayout> layout =
      state_->map->get_layout(::etr::StringView(key.data(), key.size()));
  if (!layout.ok()) return runtime::internal::to_official_error(static_cast<int>(layout.error()));
  return runtime::TensorLayout::create(layout->sizes, layout->dim_order, layout->dtype);
}

Result<FreeableBuffer> FlatTensorDataMap::get_data(std::string_view key) const {
  ::etr::Result<::etr::FreeableBuffer> data =
      state_->map->get_data(::etr::StringView(key.data(), key.size()));
  if (!data.ok()) return runtime::internal::to_official_error(static_cast<int>(data.error()));
  return runtime::to_official(std::move(*data));
}

Error FlatTensorDataMap::load_data_into(std::string_view key, void* buffer, size_t size) const {
  ET_CHECK_OR_RETURN_ERROR(buffer != nullptr || size == 0, InvalidArgument,
                           "load_data_into: null buffer");
  ::etr::Result<::etr::FreeableBuffer> data =
      state_->map->get_data(::etr::StringView(key.data(), key.size()));
  if (!data.ok()) return runtime::internal::to_official_error(static_cast<int>(data.error()));
  ET_CHECK_OR_RETURN_ERROR(size <= data->size(), InvalidArgument,
                           "load_data_into('%.*s'): %zu bytes asked, %zu stored",
                           static_cast<int>(key.size()), key.data(), size, data->size());
  if (size != 0) std::memcpy(buffer, data->data(), size);
  return Error::Ok;
}

Result<uint32_t> FlatTensorDataMap::get_num_keys() const {
  return static_cast<uint32_t>(state_->map->num_keys());
}

Result<const char*> FlatTensorDataMap::get_key(uint32_t index) const {
  ::etr::Result<const char*> key = state_->map->key_at(index);
  if (!key.ok()) return runtime::internal::to_official_error(static_cast<int>(key.error()));
  return *key;
}

const ::etr::NamedDataMap* FlatTensorDataMap::etr_map() const { return &*state_->map; }

}  // namespace extension
}  // namespace executorch

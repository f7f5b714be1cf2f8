// etr_list_operators: prints the operators that the methods of one or more
// .pte files call, one "namespace::name.overload" per line, sorted and
// without repeats. Built from the executor alone (no kernels), it runs on the
// build host to feed the selective build (cmake/selective_build.cmake); for a
// cross build, run it on the host and pass its output as ETR_SELECT_OPS.
//
//   etr_list_operators model.pte [more.pte ...] [--output=FILE]
//
// Exit 0 on success; 1 on a usage error; 2 when a file cannot be opened or
// is not a valid program (the reason is on stderr).
#include <cstdio>
#include <cstring>
#include <set>
#include <string>

#include "extension/data_loader/file_data_loader.h"
#include "runtime/executor/method_meta.h"
#include "runtime/executor/program.h"

namespace {

// Adds the operators of every method of `path` to `out`; false (after a
// message on stderr) when the file is unreadable or malformed.
bool collect(const char* path, std::set<std::string>* out) {
  etr::Result<etr::FileDataLoader> loader = etr::FileDataLoader::from(path);
  if (!loader.ok()) {
    std::fprintf(stderr, "etr_list_operators: cannot open '%s': %s\n", path,
                 etr::to_string(loader.error()));
    return false;
  }
  etr::Result<etr::Program> program = etr::Program::load(&*loader);
  if (!program.ok()) {
    std::fprintf(stderr, "etr_list_operators: '%s' is not a valid program: %s\n", path,
                 etr::to_string(program.error()));
    return false;
  }
  for (size_t m = 0; m < program->num_methods(); ++m) {
    etr::Result<const char*> name = program->get_method_name(m);
    etr::Result<etr::MethodMeta> meta =
        name.ok() ? program->method_meta(*name) : etr::Result<etr::MethodMeta>(name.error());
    if (!meta.ok()) {
      std::fprintf(stderr, "etr_list_operators: '%s': cannot read method %zu: %s\n", path, m,
                   etr::to_string(meta.error()));
      return false;
    }
    for (size_t i = 0; i < meta->num_operators(); ++i) {
      etr::Result<etr::OperatorUse> use = meta->operator_use(i);
      if (!use.ok()) {
        std::fprintf(stderr, "etr_list_operators: '%s': method '%s': operator %zu: %s\n", path,
                     *name, i, etr::to_string(use.error()));
        return false;
      }
      std::string full = use->name;
      if (use->overload[0] != '\0') full += std::string(".") + use->overload;
      out->insert(full);
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const char* output = nullptr;
  std::set<std::string> ops;
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--output=", 9) == 0) {
      output = argv[i] + 9;
    } else if (argv[i][0] == '-') {
      std::fprintf(stderr, "usage: etr_list_operators FILE.pte... [--output=FILE]\n");
      return 1;
    } else {
      if (!collect(argv[i], &ops)) return 2;
      ++files;
    }
  }
  if (files == 0) {
    std::fprintf(stderr, "usage: etr_list_operators FILE.pte... [--output=FILE]\n");
    return 1;
  }
  FILE* f = output == nullptr ? stdout : std::fopen(output, "w");
  if (f == nullptr) {
    std::fprintf(stderr, "etr_list_operators: cannot write '%s'\n", output);
    return 2;
  }
  for (const std::string& op : ops) std::fprintf(f, "%s\n", op.c_str());
  if (f != stdout && std::fclose(f) != 0) {
    std::fprintf(stderr, "etr_list_operators: cannot write '%s'\n", output);
    return 2;
  }
  return 0;
}

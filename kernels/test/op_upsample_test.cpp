// aten::upsample_nearest2d.vec_out, aten::upsample_bilinear2d.vec_out and
// aten::_upsample_bilinear2d_aa.out. Expected values: torch 2.15.0 eager,
// the torch.ops.aten call written above each case (x below).
#include <optional>

#include "kernels/test/kernel_test_util.h"

namespace etr {
namespace testing {
namespace {

// x = torch.manual_seed(0); torch.randn(1, 2, 3, 4)
const std::vector<float> kX = {
    -1.12583983f, -1.1523602f,   -0.250578582f, -0.433878809f, 0.848710358f,  0.692009151f,
    -0.31601277f, -2.11521935f,  0.468096405f,  -0.157712445f, 1.44366014f,   0.266049415f,
    0.166455343f, 0.87438184f,   -0.143473849f, -0.111609332f, 0.931826591f,  1.25900924f,
    2.00498056f,  0.0537369028f, 0.618056655f,  -0.412802219f, -0.841064811f, -2.31604195f};

struct UpsampleCase {
  const char* kind;  // nearest, bilinear, aa
  std::vector<int64_t> size;
  std::vector<double> scales;  // nearest/bilinear scale_factors (empty: None)
  bool align_corners;
  std::optional<double> scale_h, scale_w;  // aa scales
  std::vector<int32_t> out_shape;
  std::vector<float> expected;
};

const UpsampleCase kCases[] = {
    // A scale that leaves a size unchanged (floor(3 * 1.2) = 3) copies that
    // dim in PyTorch instead of sampling it with step 1 / 1.2:
    // torch.ops.aten.upsample_bilinear2d.vec(x, None, False, [1.2, 2.0])
    {"bilinear",
     {},
     {1.2, 2.0},
     false,
     std::nullopt,
     std::nullopt,
     {1, 2, 3, 8},
     {-1.12583983f,    -1.13246989f,  -1.14573014f,  -0.926914811f, -0.476023972f, -0.296403646f,
      -0.388053775f,   -0.433878809f, 0.848710358f,  0.809535027f,  0.731184423f,  0.440003663f,
      -0.0640072972f,  -0.765814424f, -1.66541779f,  -2.11521935f,  0.468096405f,  0.311644197f,
      -0.00126022846f, 0.242630705f,  1.04331696f,   1.14925742f,   0.560452104f,  0.266049415f,
      0.166455343f,    0.343436956f,  0.697400212f,  0.619917929f,  0.110990077f,  -0.135507718f,
      -0.119575456f,   -0.111609332f, 0.931826591f,  1.01362228f,   1.17721355f,   1.44550204f,
      1.81848776f,     1.51716959f,   0.541547835f,  0.0537369028f, 0.618056655f,  0.360341936f,
      -0.155087501f,   -0.519867897f, -0.733999133f, -1.20980906f,  -1.94729769f,  -2.31604195f}},
    // torch.ops.aten._upsample_bilinear2d_aa(x, [3, 8], False, 1.2, 2.0)
    {"aa",
     {3, 8},
     {},
     false,
     1.2,
     2.0,
     {1, 2, 3, 8},
     {-1.12583983f,    -1.13246989f,  -1.14573014f,  -0.926914811f, -0.476023972f, -0.296403646f,
      -0.388053745f,   -0.433878809f, 0.848710358f,  0.809535086f,  0.731184483f,  0.440003663f,
      -0.0640072897f,  -0.765814424f, -1.66541767f,  -2.11521935f,  0.468096405f,  0.311644197f,
      -0.00126023218f, 0.242630705f,  1.04331696f,   1.14925742f,   0.560452104f,  0.266049415f,
      0.166455343f,    0.343436956f,  0.697400212f,  0.619917929f,  0.110990077f,  -0.135507718f,
      -0.119575463f,   -0.111609332f, 0.931826591f,  1.01362228f,   1.17721355f,   1.44550204f,
      1.81848776f,     1.51716959f,   0.541547835f,  0.0537369028f, 0.618056655f,  0.360341936f,
      -0.155087501f,   -0.519867897f, -0.733999133f, -1.20980906f,  -1.94729769f,  -2.31604195f}},
    // torch.ops.aten.upsample_nearest2d.vec(x, [5, 7], None)
    {"nearest",
     {5, 7},
     {},
     false,
     std::nullopt,
     std::nullopt,
     {1, 2, 5, 7},
     {-1.12583983f,  -1.12583983f,  -1.1523602f,   -1.1523602f,   -0.250578582f, -0.250578582f,
      -0.433878809f, -1.12583983f,  -1.12583983f,  -1.1523602f,   -1.1523602f,   -0.250578582f,
      -0.250578582f, -0.433878809f, 0.848710358f,  0.848710358f,  0.692009151f,  0.692009151f,
      -0.31601277f,  -0.31601277f,  -2.11521935f,  0.848710358f,  0.848710358f,  0.692009151f,
      0.692009151f,  -0.31601277f,  -0.31601277f,  -2.11521935f,  0.468096405f,  0.468096405f,
      -0.157712445f, -0.157712445f, 1.44366014f,   1.44366014f,   0.266049415f,  0.166455343f,
      0.166455343f,  0.87438184f,   0.87438184f,   -0.143473849f, -0.143473849f, -0.111609332f,
      0.166455343f,  0.166455343f,  0.87438184f,   0.87438184f,   -0.143473849f, -0.143473849f,
      -0.111609332f, 0.931826591f,  0.931826591f,  1.25900924f,   1.25900924f,   2.00498056f,
      2.00498056f,   0.0537369028f, 0.931826591f,  0.931826591f,  1.25900924f,   1.25900924f,
      2.00498056f,   2.00498056f,   0.0537369028f, 0.618056655f,  0.618056655f,  -0.412802219f,
      -0.412802219f, -0.841064811f, -0.841064811f, -2.31604195f}},
    // torch.ops.aten.upsample_nearest2d.vec(x, None, [1.5, 0.5])
    {"nearest",
     {},
     {1.5, 0.5},
     false,
     std::nullopt,
     std::nullopt,
     {1, 2, 4, 2},
     {-1.12583983f, -0.250578582f, -1.12583983f, -0.250578582f, 0.848710358f, -0.31601277f,
      0.468096405f, 1.44366014f, 0.166455343f, -0.143473849f, 0.166455343f, -0.143473849f,
      0.931826591f, 2.00498056f, 0.618056655f, -0.841064811f}},
    // torch.ops.aten.upsample_nearest2d.vec(x, [6, 8], None)
    {"nearest",
     {6, 8},
     {},
     false,
     std::nullopt,
     std::nullopt,
     {1, 2, 6, 8},
     {-1.12583983f,  -1.12583983f,  -1.1523602f,   -1.1523602f,   -0.250578582f, -0.250578582f,
      -0.433878809f, -0.433878809f, -1.12583983f,  -1.12583983f,  -1.1523602f,   -1.1523602f,
      -0.250578582f, -0.250578582f, -0.433878809f, -0.433878809f, 0.848710358f,  0.848710358f,
      0.692009151f,  0.692009151f,  -0.31601277f,  -0.31601277f,  -2.11521935f,  -2.11521935f,
      0.848710358f,  0.848710358f,  0.692009151f,  0.692009151f,  -0.31601277f,  -0.31601277f,
      -2.11521935f,  -2.11521935f,  0.468096405f,  0.468096405f,  -0.157712445f, -0.157712445f,
      1.44366014f,   1.44366014f,   0.266049415f,  0.266049415f,  0.468096405f,  0.468096405f,
      -0.157712445f, -0.157712445f, 1.44366014f,   1.44366014f,   0.266049415f,  0.266049415f,
      0.166455343f,  0.166455343f,  0.87438184f,   0.87438184f,   -0.143473849f, -0.143473849f,
      -0.111609332f, -0.111609332f, 0.166455343f,  0.166455343f,  0.87438184f,   0.87438184f,
      -0.143473849f, -0.143473849f, -0.111609332f, -0.111609332f, 0.931826591f,  0.931826591f,
      1.25900924f,   1.25900924f,   2.00498056f,   2.00498056f,   0.0537369028f, 0.0537369028f,
      0.931826591f,  0.931826591f,  1.25900924f,   1.25900924f,   2.00498056f,   2.00498056f,
      0.0537369028f, 0.0537369028f, 0.618056655f,  0.618056655f,  -0.412802219f, -0.412802219f,
      -0.841064811f, -0.841064811f, -2.31604195f,  -2.31604195f,  0.618056655f,  0.618056655f,
      -0.412802219f, -0.412802219f, -0.841064811f, -0.841064811f, -2.31604195f,  -2.31604195f}},
    // torch.ops.aten.upsample_bilinear2d.vec(x, [5, 7], False, None)
    {"bilinear",
     {5, 7},
     {},
     false,
     std::nullopt,
     std::nullopt,
     {1, 2, 5, 7},
     {-1.12583983f,   -1.13531137f,  -1.15046585f,  -0.701469302f, -0.263671488f, -0.368414491f,
      -0.433878809f,  -0.336019665f, -0.364088535f, -0.408998638f, -0.345682323f, -0.336014062f,
      -0.810107112f,  -1.10641515f,  0.848710358f,  0.79274559f,   0.703202128f,  0.187998056f,
      -0.444527894f,  -1.47264588f,  -2.11521935f,  0.620341957f,  0.463854104f,  0.213473618f,
      0.460983694f,   0.637915969f,  -0.177083373f, -0.686457753f, 0.468096405f,  0.244593218f,
      -0.11301183f,   0.642974019f,  1.35954487f,   0.686624467f,  0.266049415f,  0.166455343f,
      0.419286251f,   0.823815644f,  0.365453869f,  -0.141197801f, -0.122989513f, -0.111609332f,
      0.472603858f,   0.6710428f,    0.98854506f,   0.872070372f,  0.66152364f,   0.226450056f,
      -0.0454708301f, 0.931826591f,  1.04867756f,   1.23563898f,   1.63199496f,   1.86560559f,
      0.750609279f,   0.0537369028f, 0.743564546f,  0.569406509f,  0.290753722f,  0.276637524f,
      0.178389505f,   -0.77331543f,  -1.36813068f,  0.618056655f,  0.249892712f,  -0.339169443f,
      -0.626933575f,  -0.94642061f,  -1.78926456f,  -2.31604195f}},
    // torch.ops.aten.upsample_bilinear2d.vec(x, [2, 3], False, None)
    {"bilinear",
     {2, 3},
     {},
     false,
     std::nullopt,
     std::nullopt,
     {1, 2, 2, 3},
     {-0.642046511f, -0.479102522f, -0.756334543f, 0.478494585f, 0.529229939f, -0.10709969f,
      0.459921598f, 0.68208921f, 0.00704591209f, 0.58127439f, -0.0622013956f, -1.45792353f}},
    // torch.ops.aten.upsample_bilinear2d.vec(x, None, False, [2.5, 1.3])
    {"bilinear",
     {},
     {2.5, 1.3},
     false,
     std::nullopt,
     std::nullopt,
     {1, 2, 7, 5},
     {-1.12583983f,  -1.14318001f,   -0.770837128f,  -0.28582862f,  -0.426828831f, -0.928384781f,
      -0.954236925f, -0.667199612f,  -0.323447168f,  -0.588747859f, -0.138564736f, -0.198464066f,
      -0.252649426f, -0.473921329f,  -1.23642409f,   0.651255429f,  0.557308793f,  0.161900744f,
      -0.624395549f, -1.88410032f,   0.734526157f,   0.540050447f,  0.34181422f,   -0.0982507542f,
      -1.33881068f,  0.582280576f,   0.265115112f,   0.443515509f,  0.653433442f,  -0.395866245f,
      0.468096405f,  0.0589137003f,  0.519791424f,   1.21719646f,   0.311342031f,  0.166455343f,
      0.629330337f,  0.44375053f,    -0.137346059f,  -0.112834886f, 0.242992476f,  0.680972695f,
      0.556836724f,  0.0393626951f,  -0.0886729434f, 0.54914099f,   0.887542009f,  1.0091815f,
      0.746197641f,  0.00797483511f, 0.855289519f,   1.09411144f,   1.46152639f,   1.45303273f,
      0.104622625f,  0.837695599f,   0.785237551f,   0.924031556f,  0.80340445f,   -0.587644637f,
      0.712187588f,  0.304549545f,   0.056590464f,   -0.298377723f, -1.54288328f,  0.618056655f,
      -0.055966448f, -0.593990266f,  -1.12471426f,   -2.25931239f}},
    // torch.ops.aten._upsample_bilinear2d_aa(x, [2, 3], False)
    {"aa",
     {2, 3},
     {},
     false,
     std::nullopt,
     std::nullopt,
     {1, 2, 2, 3},
     {-0.407984942f, -0.367919058f, -0.827602088f, 0.475858599f, 0.472357988f, -0.203713834f,
      0.623013854f, 0.840406895f, 0.163935766f, 0.579242408f, 0.220164686f, -0.931301951f}},
    // torch.ops.aten._upsample_bilinear2d_aa(x, [5, 7], False)
    {"aa",
     {5, 7},
     {},
     false,
     std::nullopt,
     std::nullopt,
     {1, 2, 5, 7},
     {-1.12583983f,   -1.13531137f,  -1.15046585f,  -0.701469421f, -0.263671488f, -0.368414462f,
      -0.433878809f,  -0.336019665f, -0.364088506f, -0.408998638f, -0.345682353f, -0.336014062f,
      -0.810107052f,  -1.10641515f,  0.848710358f,  0.79274565f,   0.703202069f,  0.187998191f,
      -0.444527894f,  -1.47264588f,  -2.11521935f,  0.620341957f,  0.463854104f,  0.213473603f,
      0.460983634f,   0.637916028f,  -0.177083388f, -0.686457753f, 0.468096405f,  0.244593203f,
      -0.113011837f,  0.64297384f,   1.35954487f,   0.686624467f,  0.266049415f,  0.166455343f,
      0.419286281f,   0.823815703f,  0.365453988f,  -0.141197816f, -0.122989513f, -0.111609332f,
      0.472603858f,   0.6710428f,    0.98854506f,   0.872070432f,  0.66152364f,   0.226450056f,
      -0.0454708301f, 0.931826591f,  1.04867756f,   1.2356391f,    1.63199496f,   1.86560571f,
      0.750609338f,   0.0537369028f, 0.743564546f,  0.569406509f,  0.290753722f,  0.276637554f,
      0.178389549f,   -0.77331543f,  -1.3681308f,   0.618056655f,  0.249892697f,  -0.339169472f,
      -0.626933515f,  -0.94642061f,  -1.78926468f,  -2.31604195f}},
    // torch.ops.aten._upsample_bilinear2d_aa(x, [1, 1], False)
    {"aa",
     {1, 1},
     {},
     false,
     std::nullopt,
     std::nullopt,
     {1, 2, 1, 1},
     {-0.12497209f, 0.354609668f}},
    // torch.ops.aten.upsample_bilinear2d.vec(x, [5, 7], True, None)
    {"bilinear",
     {5, 7},
     {},
     true,
     std::nullopt,
     std::nullopt,
     {1, 2, 5, 7},
     {-1.12583983f,   -1.13910007f,  -1.1523602f,   -0.701469421f, -0.250578582f, -0.342228711f,
      -0.433878809f,  -0.138564736f, -0.184370175f, -0.230175525f, -0.256735623f, -0.283295691f,
      -0.778922379f,  -1.27454913f,  0.848710358f,  0.770359755f,  0.692009151f,  0.187998191f,
      -0.31601277f,   -1.21561611f,  -2.11521935f,  0.658403397f,  0.462775886f,  0.267148346f,
      0.415486008f,   0.5638237f,    -0.180380672f, -0.924584985f, 0.468096405f,  0.155191988f,
      -0.157712445f,  0.64297384f,   1.44366014f,   0.854854763f,  0.266049415f,  0.166455343f,
      0.520418584f,   0.87438184f,   0.365453988f,  -0.143473849f, -0.127541587f, -0.111609332f,
      0.54914099f,    0.807918251f,  1.06669557f,   0.998724461f,  0.93075335f,   0.450908571f,
      -0.0289362147f, 0.931826591f,  1.09541798f,   1.25900924f,   1.63199496f,   2.00498056f,
      1.02935874f,    0.0537369028f, 0.774941623f,  0.599022627f,  0.423103511f,  0.502530694f,
      0.581957877f,   -0.274597317f, -1.13115251f,  0.618056655f,  0.102627218f,  -0.412802219f,
      -0.626933515f,  -0.841064811f, -1.57855344f,  -2.31604195f}},
    // torch.ops.aten.upsample_bilinear2d.vec(x, [2, 3], True, None)
    {"bilinear",
     {2, 3},
     {},
     true,
     std::nullopt,
     std::nullopt,
     {1, 2, 2, 3},
     {-1.12583983f, -0.701469421f, -0.433878809f, 0.468096405f, 0.64297384f, 0.266049415f,
      0.166455343f, 0.365453988f, -0.111609332f, 0.618056655f, -0.626933515f, -2.31604195f}},
    // torch.ops.aten.upsample_bilinear2d.vec(x, None, True, [2.5, 1.3])
    {"bilinear",
     {},
     {2.5, 1.3},
     true,
     std::nullopt,
     std::nullopt,
     {1, 2, 7, 5},
     {-1.12583983f,  -1.14573014f,    -0.701469421f,  -0.296403646f, -0.433878809f, -0.467656404f,
      -0.520091832f, -0.404980183f,   -0.452873886f,  -0.994325638f, 0.190526992f,  0.105546311f,
      -0.108490989f, -0.609344184f,   -1.5547725f,    0.848710358f,  0.731184423f,  0.187998191f,
      -0.765814424f, -2.11521935f,    0.721839011f,   0.487036169f,  0.33965677f,   -0.127457067f,
      -1.32146299f,  0.594967663f,    0.242887944f,   0.491315335f,  0.510900319f,  -0.527706623f,
      0.468096405f,  -0.00126022846f, 0.64297384f,    1.14925742f,   0.266049415f,  0.166455343f,
      0.697400212f,  0.365453988f,    -0.135507718f,  -0.111609332f, 0.421579093f,  0.857337952f,
      0.787634313f,  0.41538474f,     -0.0564939119f, 0.676702857f,  1.01727581f,   1.20981467f,
      0.966277182f,  -0.00137850409f, 0.931826591f,   1.17721355f,   1.63199496f,   1.51716959f,
      0.0537369028f, 0.827236593f,    0.73311317f,    0.879018664f,  0.608176589f,  -0.736189485f,
      0.722646594f,  0.28901273f,     0.126042455f,   -0.300816387f, -1.52611589f,  0.618056655f,
      -0.155087501f, -0.626933515f,   -1.20980906f,   -2.31604195f}},
    // torch.ops.aten._upsample_bilinear2d_aa(x, [2, 3], True)
    {"aa",
     {2, 3},
     {},
     true,
     std::nullopt,
     std::nullopt,
     {1, 2, 2, 3},
     {-0.114870675f, -0.210763678f, -0.88481766f, 0.372550398f, 0.539288402f, -0.107099541f,
      0.670118392f, 0.622059226f, -0.183448642f, 0.437243462f, -0.261768043f, -1.45792341f}},
    // torch.ops.aten._upsample_bilinear2d_aa(x, [5, 7], True)
    {"aa",
     {5, 7},
     {},
     true,
     std::nullopt,
     std::nullopt,
     {1, 2, 5, 7},
     {-1.12583983f,   -1.13246989f,  -1.14573014f,  -0.926914811f, -0.476023972f,  -0.296403646f,
      -0.388053745f,  -0.632202327f, -0.646968663f, -0.676501513f, -0.58518523f,   -0.373019814f,
      -0.413756341f,  -0.707394719f, 0.355072796f,  0.324033856f,  0.261955827f,   0.0982740447f,
      -0.167011455f,  -0.648461699f, -1.34607673f,  0.753556907f,  0.685062408f,   0.548073292f,
      0.390660435f,   0.212823778f,  -0.287046492f, -1.10895026f,  0.563249886f,   0.436116934f,
      0.18185094f,    0.291973948f,  0.76648587f,   0.67048943f,   0.00398465991f, 0.166455343f,
      0.343436956f,   0.697400212f,  0.619917929f,  0.110990077f,  -0.135507718f,  -0.119575463f,
      0.357798159f,   0.510983288f,  0.817353606f,  0.826313972f,  0.537864506f,   0.277661622f,
      0.0457053632f,  0.740483761f,  0.846075952f,  1.05726027f,   1.23910606f,    1.39161336f,
      1.10400021f,    0.376267016f,  0.853384137f,  0.850302219f,  0.844138265f,   0.954159498f,
      1.18036604f,    0.83542496f,   -0.080663532f, 0.696499109f,  0.523662031f,   0.177987754f,
      -0.0285254121f, -0.095877409f, -0.52806437f,  -1.32508636f}},
    // torch.ops.aten._upsample_bilinear2d_aa(x, [1, 1], True)
    {"aa",
     {1, 1},
     {},
     true,
     std::nullopt,
     std::nullopt,
     {1, 2, 1, 1},
     {-1.12583983f, 0.166455343f}},
    // torch.ops.aten._upsample_bilinear2d_aa(x, [2, 2], False, 0.6, 0.45)
    {"aa",
     {2, 2},
     {},
     false,
     0.6,
     0.45,
     {1, 2, 2, 2},
     {-0.314689338f, -0.756720781f, 0.437000662f, 0.127366394f, 0.783030987f, 0.365206242f,
      0.288897842f, -0.882396042f}},
};

// Runs one case on `input` into `out`; returns the runner's result.
Error run_case(const UpsampleCase& c, HostTensor& input, HostTensor& out) {
  KernelRunner r;
  const std::string kind = c.kind;
  EValue* size = c.size.empty() ? r.none() : r.int_list(c.size);
  EValue* scales = c.scales.empty() ? r.none() : r.double_list(c.scales);
  if (kind == "nearest") {
    return r.run("aten::upsample_nearest2d.vec_out",
                 {r.tensor(input), size, scales, r.tensor(out)});
  }
  if (kind == "bilinear") {
    return r.run("aten::upsample_bilinear2d.vec_out",
                 {r.tensor(input), size, r.b(c.align_corners), scales, r.tensor(out)});
  }
  EValue* sh = c.scale_h.has_value() ? r.d(*c.scale_h) : r.none();
  EValue* sw = c.scale_w.has_value() ? r.d(*c.scale_w) : r.none();
  return r.run("aten::_upsample_bilinear2d_aa.out",
               {r.tensor(input), size, r.b(c.align_corners), sh, sw, r.tensor(out)});
}

TEST(OpUpsampleTest, MatchesTorch) {
  for (const UpsampleCase& c : kCases) {
    SCOPED_TRACE(::testing::Message()
                 << c.kind << " size " << c.size.size() << " align " << c.align_corners << " out "
                 << c.out_shape[2] << "x" << c.out_shape[3]);
    HostTensor x = make_tensor<float>({1, 2, 3, 4}, kX);
    HostTensor out = zeros_tensor(ScalarType::Float, {1, 2, 8, 8});
    ASSERT_EQ(run_case(c, x, out), Error::Ok);
    EXPECT_EQ(std::vector<int32_t>(out.tensor().sizes().begin(), out.tensor().sizes().end()),
              c.out_shape);
    expect_close(out.values<float>(), c.expected, 1e-5, 1e-5);
  }
}

TEST(OpUpsampleTest, DoubleAndByte) {
  HostTensor xd = make_tensor<double>({1, 2, 3, 4}, std::vector<double>(kX.begin(), kX.end()));
  HostTensor outd = zeros_tensor(ScalarType::Double, {1, 2, 5, 7});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::upsample_bilinear2d.vec_out",
                  {r.tensor(xd), r.int_list({5, 7}), r.b(true), r.none(), r.tensor(outd)}),
            Error::Ok);
  // torch.ops.aten.upsample_bilinear2d.vec(x.double(), [5, 7], True, None)
  expect_close(
      outd.values<double>(),
      std::vector<double>{
          -1.12583983,   -1.13910002,  -1.1523602,   -0.701469392, -0.250578582, -0.342228696,
          -0.433878809,  -0.138564736, -0.18437013,  -0.230175525, -0.256735601, -0.283295676,
          -0.778922379,  -1.27454908,  0.848710358,  0.770359755,  0.692009151,  0.187998191,
          -0.31601277,   -1.21561606,  -2.11521935,  0.658403382,  0.462775867,  0.267148353,
          0.415486019,   0.563823685,  -0.180380642, -0.92458497,  0.468096405,  0.15519198,
          -0.157712445,  0.642973848,  1.44366014,   0.854854777,  0.266049415,  0.166455343,
          0.520418592,   0.87438184,   0.365453996,  -0.143473849, -0.12754159,  -0.111609332,
          0.549140967,   0.807918254,  1.06669554,   0.998724449,  0.930753358,  0.450908571,
          -0.0289362147, 0.931826591,  1.09541792,   1.25900924,   1.6319949,    2.00498056,
          1.02935873,    0.0537369028, 0.774941623,  0.599022567,  0.423103511,  0.502530694,
          0.581957877,   -0.274597323, -1.13115252,  0.618056655,  0.102627218,  -0.412802219,
          -0.626933515,  -0.841064811, -1.57855338,  -2.31604195},
      1e-7, 1e-7);

  HostTensor u = make_tensor<uint8_t>({1, 1, 3, 4}, iota<uint8_t>(12));
  HostTensor outu = zeros_tensor(ScalarType::Byte, {1, 1, 4, 6});
  KernelRunner r2;
  ASSERT_EQ(r2.run("aten::upsample_nearest2d.vec_out",
                   {r2.tensor(u), r2.int_list({4, 6}), r2.none(), r2.tensor(outu)}),
            Error::Ok);
  // torch.ops.aten.upsample_nearest2d.vec(torch.arange(12, dtype=torch.uint8).view(1, 1, 3, 4),
  //   [4, 6], None)
  EXPECT_EQ(outu.values<uint8_t>(), (std::vector<uint8_t>{0, 0, 1, 2, 2, 3, 0, 0, 1, 2,  2,  3,
                                                          4, 4, 5, 6, 6, 7, 8, 8, 9, 10, 10, 11}));
}

TEST(OpUpsampleTest, RefusesBadArguments) {
  HostTensor x = make_tensor<float>({1, 2, 3, 4}, kX);
  HostTensor out = zeros_tensor(ScalarType::Float, {1, 2, 8, 8});
  {  // both output_size and scale_factors
    KernelRunner r;
    EXPECT_EQ(
        r.prepare("aten::upsample_nearest2d.vec_out",
                  {r.tensor(x), r.int_list({2, 2}), r.double_list({1.0, 1.0}), r.tensor(out)}),
        Error::InvalidArgument);
  }
  {  // neither
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::upsample_bilinear2d.vec_out",
                        {r.tensor(x), r.none(), r.b(false), r.none(), r.tensor(out)}),
              Error::InvalidArgument);
  }
  {  // a 3-D input
    HostTensor x3 = make_tensor<float>({2, 3, 4}, iota(24));
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::upsample_nearest2d.vec_out",
                        {r.tensor(x3), r.int_list({2, 2}), r.none(), r.tensor(out)}),
              Error::InvalidArgument);
  }
  {  // Int32 input to bilinear (PyTorch has no integer path but uint8)
    HostTensor xi = make_tensor<int32_t>({1, 1, 2, 2}, {1, 2, 3, 4});
    HostTensor oi = zeros_tensor(ScalarType::Int, {1, 1, 4, 4});
    KernelRunner r;
    EXPECT_EQ(r.prepare("aten::upsample_bilinear2d.vec_out",
                        {r.tensor(xi), r.int_list({4, 4}), r.b(false), r.none(), r.tensor(oi)}),
              Error::InvalidType);
  }
  {  // zero and negative scales, an empty output size
    KernelRunner r;
    EXPECT_EQ(r.run("aten::upsample_nearest2d.vec_out",
                    {r.tensor(x), r.none(), r.double_list({0.0, 1.0}), r.tensor(out)}),
              Error::InvalidArgument);
    KernelRunner r2;
    EXPECT_EQ(r2.run("aten::upsample_bilinear2d.vec_out",
                     {r2.tensor(x), r2.int_list({0, 3}), r2.b(false), r2.none(), r2.tensor(out)}),
              Error::InvalidArgument);
    KernelRunner r3;
    EXPECT_EQ(r3.run("aten::_upsample_bilinear2d_aa.out",
                     {r3.tensor(x), r3.int_list({2, -1}), r3.b(false), r3.none(), r3.none(),
                      r3.tensor(out)}),
              Error::InvalidArgument);
  }
  {  // a tiny scale asks for a huge filter: refused, not allocated
    KernelRunner r;
    EXPECT_NE(
        r.run("aten::_upsample_bilinear2d_aa.out",
              {r.tensor(x), r.int_list({1, 1}), r.b(false), r.d(1e-300), r.none(), r.tensor(out)}),
        Error::Ok);
  }
}

TEST(OpUpsampleTest, EmptyBatch) {
  HostTensor x = zeros_tensor(ScalarType::Float, {0, 2, 3, 4});
  HostTensor out = zeros_tensor(ScalarType::Float, {0, 2, 6, 8});
  KernelRunner r;
  ASSERT_EQ(r.run("aten::upsample_bilinear2d.vec_out",
                  {r.tensor(x), r.none(), r.b(false), r.double_list({2.0, 2.0}), r.tensor(out)}),
            Error::Ok);
  EXPECT_EQ(out.tensor().size(2), 6);
  EXPECT_EQ(out.tensor().size(3), 8);
}

}  // namespace
}  // namespace testing
}  // namespace etr

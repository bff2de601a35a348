// SPDX-License-Identifier: MIT
// Which Highway target the kernels run on: DispatchedTargetName(), and the
// URISCAN_TARGET environment variable that lowers it (RequestedTarget()).
#include <cctype>
#include <cstdlib>
#include <cstring>

#include "kernels/kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/target_info.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace uriscan {
namespace HWY_NAMESPACE {
namespace {

int64_t CurrentTarget() { return HWY_TARGET; }

}  // namespace
}  // namespace HWY_NAMESPACE
}  // namespace uriscan
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace uriscan {
namespace {
HWY_EXPORT(CurrentTarget);

bool SameName(const char* a, const char* b) {
  for (; *a && *b; ++a, ++b) {
    if (std::toupper(static_cast<unsigned char>(*a)) !=
        std::toupper(static_cast<unsigned char>(*b)))
      return false;
  }
  return *a == *b;
}

// URISCAN_TARGET as read once, and whether it took effect.
struct TargetRequest {
  const char* name = nullptr;
  bool honoured = false;
};

TargetRequest ReadTargetRequest() {
  TargetRequest r;
  const char* env = std::getenv("URISCAN_TARGET");
  if (env == nullptr || *env == '\0') return r;
  r.name = env;
  for (int bit = 0; bit < 63; ++bit) {
    const int64_t target = int64_t{1} << bit;
    if ((HWY_TARGETS & target) == 0 || !SameName(env, hwy::TargetName(target)))
      continue;
    if ((hwy::SupportedTargets() & target) != 0) {
      hwy::DisableTargets(target - 1);  // better targets have lower bits
      r.honoured = true;
    }
    break;
  }
  return r;
}

const TargetRequest& Request() {
  static const TargetRequest request = ReadTargetRequest();
  return request;
}

}  // namespace

namespace kernels {

void ApplyTargetRequest() { (void)Request(); }

const char* DispatchedTargetName() {
  ApplyTargetRequest();
  return hwy::TargetName(HWY_DYNAMIC_DISPATCH(CurrentTarget)());
}

const char* RequestedTarget(bool* honoured) {
  const TargetRequest& r = Request();
  if (honoured != nullptr) *honoured = r.honoured;
  return r.name;
}

}  // namespace kernels

}  // namespace uriscan
#endif  // HWY_ONCE

// SPDX-License-Identifier: MIT
// DispatchedTargetName(): which Highway target the kernels run on.
#include "uriscan/spans.h"  // the declaration, with its export attribute

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
}  // namespace

const char* DispatchedTargetName() {
  return hwy::TargetName(HWY_DYNAMIC_DISPATCH(CurrentTarget)());
}

}  // namespace uriscan
#endif  // HWY_ONCE

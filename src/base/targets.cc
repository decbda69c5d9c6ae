#include "base/targets.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "base/targets.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace posenc {
namespace HWY_NAMESPACE {
int64_t ThisTarget() { return HWY_TARGET; }
}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace posenc {
HWY_EXPORT(ThisTarget);
int64_t DispatchedTarget() { return HWY_DYNAMIC_DISPATCH(ThisTarget)(); }
const char* DispatchedTargetName() {
  return hwy::TargetName(DispatchedTarget());
}
}  // namespace posenc
#endif

#include "peak.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "peak.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace posenc {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

HWY_NOINLINE float PeakMulAddImpl(size_t iters) {
  const hn::ScalableTag<float> d;
  const hn::Vec<decltype(d)> m = hn::Set(d, 0.999999f);
  const hn::Vec<decltype(d)> a = hn::Set(d, 1e-7f);
  hn::Vec<decltype(d)> c0 = hn::Set(d, 1.0f), c1 = hn::Set(d, 1.1f),
                       c2 = hn::Set(d, 1.2f), c3 = hn::Set(d, 1.3f),
                       c4 = hn::Set(d, 1.4f), c5 = hn::Set(d, 1.5f),
                       c6 = hn::Set(d, 1.6f), c7 = hn::Set(d, 1.7f);
  for (size_t i = 0; i < iters; ++i) {
    c0 = hn::MulAdd(c0, m, a);
    c1 = hn::MulAdd(c1, m, a);
    c2 = hn::MulAdd(c2, m, a);
    c3 = hn::MulAdd(c3, m, a);
    c4 = hn::MulAdd(c4, m, a);
    c5 = hn::MulAdd(c5, m, a);
    c6 = hn::MulAdd(c6, m, a);
    c7 = hn::MulAdd(c7, m, a);
  }
  const hn::Vec<decltype(d)> s =
      hn::Add(hn::Add(hn::Add(c0, c1), hn::Add(c2, c3)),
              hn::Add(hn::Add(c4, c5), hn::Add(c6, c7)));
  return hn::GetLane(hn::SumOfLanes(d, s));
}

size_t PeakLanesImpl() { return hn::Lanes(hn::ScalableTag<float>()); }

}  // namespace HWY_NAMESPACE
}  // namespace posenc
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace posenc {
HWY_EXPORT(PeakMulAddImpl);
HWY_EXPORT(PeakLanesImpl);
float PeakMulAdd(size_t iters) {
  return HWY_DYNAMIC_DISPATCH(PeakMulAddImpl)(iters);
}
size_t PeakLanes() { return HWY_DYNAMIC_DISPATCH(PeakLanesImpl)(); }
}  // namespace posenc
#endif

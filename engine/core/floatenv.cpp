// Per-thread denormal handling through the x86 MXCSR register.
#include "core/floatenv.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define TB_HAS_MXCSR 1
#endif

namespace tb {

#ifdef TB_HAS_MXCSR
namespace {
constexpr unsigned kFlushToZero = 1u << 15;     // FTZ: denormal results become zero
constexpr unsigned kDenormalsAreZero = 1u << 6; // DAZ: denormal inputs read as zero
constexpr unsigned kBoth = kFlushToZero | kDenormalsAreZero;
} // namespace

bool denormalControlAvailable() {
    return true;
}

void setFlushDenormals(bool on) {
    const unsigned csr = _mm_getcsr();
    _mm_setcsr(on ? csr | kBoth : csr & ~kBoth);
}

bool flushDenormalsEnabled() {
    return (_mm_getcsr() & kBoth) == kBoth;
}
#else
bool denormalControlAvailable() {
    return false;
}
void setFlushDenormals(bool) {}
bool flushDenormalsEnabled() {
    return false;
}
#endif

} // namespace tb

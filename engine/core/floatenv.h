// Denormal floats (magnitudes below about 1.2e-38 in f32) cost an x86 core a microcode assist,
// tens to hundreds of cycles per operation, so a run whose small weights and momenta drift
// into that range slows down step by step. Flushing them to zero (MXCSR's FTZ for results,
// DAZ for inputs) keeps every operation at full speed; the values lost are below anything a
// float32 training run can resolve. The setting is per thread: each thread that computes sets it.
#pragma once

namespace tb {

// Whether this CPU has a per-thread flush-to-zero control this code can set (x86-64: MXCSR).
bool denormalControlAvailable();

// Sets (or clears) flush-to-zero and denormals-are-zero on the calling thread; nothing where
// denormalControlAvailable() is false.
void setFlushDenormals(bool on);

// Whether the calling thread flushes denormals (both FTZ and DAZ set).
bool flushDenormalsEnabled();

} // namespace tb

// Process set-up that must happen before the OpenMP runtime starts: libgomp reads its wait
// policy once, when it loads, so entry points call this first thing in main().
#pragma once

namespace tb {

// Bounds how long idle OpenMP threads spin before they sleep (GOMP_SPINCOUNT=10000, tens of
// microseconds) unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT. libgomp's default spins
// ~300000 rounds: on 2 cores with two busy neighbours that made fmnist-cnn steps 4-5x slower
// (PyTorch, which keeps the default: 368 ms against our 72 ms), while sleeping at once
// (PASSIVE) costs up to 1.6x on an idle machine. A short spin keeps both: back-to-back
// parallel regions find their threads awake, and idle threads give their core away.
// Re-executes the program once to apply it; returns normally when nothing had to change or
// the re-exec failed.
void applyComputeEnvironment(char** argv);

} // namespace tb

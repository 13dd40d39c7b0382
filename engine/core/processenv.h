// Process set-up that must happen before the OpenMP runtime starts: OpenMP's wait policy is
// read once, when libgomp loads, so entry points call this first thing in main().
#pragma once

namespace tb {

// Makes idle OpenMP threads sleep instead of spin (OMP_WAIT_POLICY=PASSIVE) unless the user
// chose a policy. Spinning threads steal the cores that the loader workers, the telemetry thread
// and any other program need: on 2 cores a busy neighbour made spinning steps 35x slower than
// sleeping ones (see the issue notes). Re-executes the program once to apply it; returns
// normally when nothing had to change or the re-exec failed.
void applyComputeEnvironment(char** argv);

} // namespace tb

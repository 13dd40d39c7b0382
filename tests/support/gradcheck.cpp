// Finite-difference gradient checks for layers (filled in with the nn module).

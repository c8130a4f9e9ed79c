"""steadyflow."""

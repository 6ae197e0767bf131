//! The review's routes, asked without a socket (tower's `oneshot`).

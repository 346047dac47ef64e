"""The package's boundary: reading matrices and checkpoints, writing files atomically,
the errors that reach the user, and running tasks on a Dask cluster."""

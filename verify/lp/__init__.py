"""Strict feasibility of homogeneous linear systems, over Q and over ordered fields,
with witnesses and Gordan certificates."""

"""Exact numbers: parsing and printing rationals without ever passing through a float."""

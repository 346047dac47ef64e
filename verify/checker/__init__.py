"""The independent certificate checker: standard library only, imports nothing else from
``verify``."""

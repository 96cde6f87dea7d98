"""The program's own module: a global the program counts up (a fresh process starts it at 0)."""

COUNT = 0

"""The explorer's parts: what a control is to it, the gestures and keys it tries, what it knows
of each screen, and the map of screens it walks (``orav.agents.explorer`` decides)."""

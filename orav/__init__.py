"""orav: AI-driven UI acceptance testing through an Observe, Reason, Act, Verify loop."""

__version__ = "0.1.0"

"""Demo apps that ship with orav: Textual apps to test, beside the iOS app models in orav/sim."""

"""Platform drivers implementing ``orav.device.Device``; import the one you need (they are heavy)."""

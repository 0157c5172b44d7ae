"""orav's version: a leaf any module may import (the package's front door imports everything)."""

__version__ = "0.1.0"

"""The codec: the one cattrs converter, and bounded YAML and JSON loading whose errors are located.

- ``converter``: the cattrs converter (``structure``, ``unstructure``, ``to_json``);
- ``yaml``: scenarios and app models, within ``bounds`` (size, depth, aliases, numbers), read
  through ``libyaml``'s events where they decide the data;
- ``json``: cassette lines, blobs and model answers, within the same bounds;
- ``locate``: an error's path into a YAML document as file:line:col.
"""

from orav.codec.bounds import MAX_DEPTH, MAX_DIGITS, MAX_JSON_BYTES, MAX_NODES, MAX_YAML_BYTES
from orav.codec.converter import PathPart, clip, converter, show, structure, to_json, unstructure
from orav.codec.json import JSONRefused, decode_json, from_json, parse_json, parse_json_at
from orav.codec.yaml import (
    Locator,
    dump_yaml,
    load_yaml,
    locate,
    parse_yaml,
    plain,
    read_located,
    read_text,
    read_yaml,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_JSON_BYTES",
    "MAX_NODES",
    "MAX_YAML_BYTES",
    "JSONRefused",
    "Locator",
    "PathPart",
    "clip",
    "converter",
    "decode_json",
    "dump_yaml",
    "from_json",
    "load_yaml",
    "locate",
    "parse_json",
    "parse_json_at",
    "parse_yaml",
    "plain",
    "read_located",
    "read_text",
    "read_yaml",
    "show",
    "structure",
    "to_json",
    "unstructure",
]

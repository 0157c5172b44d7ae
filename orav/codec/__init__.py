"""The codec: the one cattrs converter, and bounded YAML and JSON loading whose errors are located.

- ``converter``: the cattrs converter (``structure``, ``unstructure``, ``to_json``);
- ``yaml``: scenarios and app models, within ``bounds`` (size, depth, aliases, numbers);
- ``json``: cassette lines, blobs and model answers, within the same bounds;
- ``locate``: an error's path into a YAML document as file:line:col.
"""

from orav.codec.bounds import MAX_DEPTH, MAX_DIGITS, MAX_JSON_BYTES, MAX_NODES, MAX_YAML_BYTES
from orav.codec.converter import PathPart, clip, converter, show, structure, to_json, unstructure
from orav.codec.json import JSONRefused, decode_json, from_json, parse_json, parse_json_at
from orav.codec.yaml import dump_yaml, load_yaml, locate, parse_yaml, plain, read_text

__all__ = [
    "MAX_DEPTH",
    "MAX_DIGITS",
    "MAX_JSON_BYTES",
    "MAX_NODES",
    "MAX_YAML_BYTES",
    "JSONRefused",
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
    "read_text",
    "show",
    "structure",
    "to_json",
    "unstructure",
]

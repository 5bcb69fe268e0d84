#!/usr/bin/env python3
"""Check Scenarios/liveline.schema.json and the example scenarios against it, and
Scenarios/liveline-bridge.schema.json and the example bridge configurations against that.

    python3 scripts/check/check-schema.py            # the schemas, Scenarios/*.yaml, Scenarios/sources/*.yaml, Scenarios/invalid/*.yaml
    python3 scripts/check/check-schema.py FILE...    # the schemas, then just these files

Files named bridge*.yaml (Scenarios/bridge.example.yaml, Docker/bridge.yaml) and the ready-made
sources in Scenarios/sources/*.yaml are bridge configurations: they are checked against the
bridge schema and begin with `# yaml-language-server: $schema=liveline-bridge.schema.json` (the
path relative to the file).

1. The schema itself must be a valid JSON Schema, draft 2020-12.
2. Every Scenarios/*.yaml must load and validate against it, and begin with the
   `# yaml-language-server: $schema=liveline.schema.json` line editors use.
3. Every Scenarios/invalid/*.yaml is broken on purpose (the README shows `liveline validate`
   errors for them). Each says in a comment whether the schema alone can see the break:
       # expect-schema: invalid    the schema must reject it (a typo'd key, a bad duration)
       # expect-schema: valid      the break is semantic (e.g. a patch changing a field's
                                   type), so the schema must accept it
   A file without the comment is only reported, not judged.

Prints one line per file: `ok FILE`, or `FILE:LINE:COLUMN: error: JSON-PATH: message` for each
problem. Exits 1 if anything failed, 2 if jsonschema or PyYAML is missing.

The `!date` tag (a scalar) loads as a string and `!daterange` (a sequence) as a list, which is how
a JSON Schema sees them. Needs: pip install jsonschema pyyaml
"""

import difflib
import glob
import json
import os
import re
import sys

try:
    import jsonschema
    import yaml
except ImportError as exc:  # pragma: no cover
    print(f"error: {exc.name} is missing; run: pip install jsonschema pyyaml", file=sys.stderr)
    sys.exit(2)

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCHEMA_PATH = os.path.join(ROOT, "Scenarios", "liveline.schema.json")
BRIDGE_SCHEMA_PATH = os.path.join(ROOT, "Scenarios", "liveline-bridge.schema.json")
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
FIRST_LINE = "# yaml-language-server: $schema=liveline.schema.json"
EXPECT_RE = re.compile(r"^#\s*expect-schema:\s*(valid|invalid)\s*$", re.MULTILINE)


class ScenarioLoader(yaml.SafeLoader):
    """A SafeLoader that knows Liveline's tags, rejects duplicate keys and keeps timestamps as text."""


# Liveline reads `2026-11-22T20:00:00Z` outside a `!date` as a plain string; so does this loader.
ScenarioLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def _construct_date(loader, node):
    if not isinstance(node, yaml.ScalarNode):
        raise yaml.constructor.ConstructorError(
            None, None, f"!date needs a scalar such as +25m, found a {node.id}", node.start_mark)
    return loader.construct_scalar(node)


def _construct_daterange(loader, node):
    if not isinstance(node, yaml.SequenceNode):
        raise yaml.constructor.ConstructorError(
            None, None, f"!daterange needs a sequence such as [+0m, +30m], found a {node.id}", node.start_mark)
    return loader.construct_sequence(node, deep=True)


def _construct_mapping(loader, node):
    loader.flatten_mapping(node)
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        if isinstance(key, str) and key in seen:
            raise yaml.constructor.ConstructorError(
                "in the mapping that starts", node.start_mark,
                f"duplicate key '{key}' (first at line {seen[key].line + 1})", key_node.start_mark)
        seen[key] = key_node.start_mark
    return loader.construct_mapping(node, deep=True)


ScenarioLoader.add_constructor("!date", _construct_date)
ScenarioLoader.add_constructor("!daterange", _construct_daterange)
ScenarioLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def rel(path):
    """The path as the repository names it: Scenarios/football.yaml."""
    return os.path.relpath(os.path.abspath(path), ROOT)


def load_yaml(text):
    """Returns (document, root node); the node tree gives line:column for a JSON path."""
    document = yaml.load(text, Loader=ScenarioLoader)
    node = yaml.compose(text, Loader=ScenarioLoader)
    return document, node


def node_at(node, path):
    """The YAML node for a JSON path (a deque of keys and indexes), as deep as it resolves."""
    for part in path:
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in node.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.value == part:
                    node = value_node
                    break
            else:
                return node
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            return node
    return node


def path_with(path, key):
    """Extends a JSON path the way jsonschema writes them: `$.a.b`, `$['stale-after']`."""
    return f"{path}.{key}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else f"{path}[{key!r}]"


def document_at(document, path):
    for part in path:
        try:
            document = document[part]
        except (KeyError, IndexError, TypeError):
            return None
    return document


def key_node_in(node, key):
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
                return key_node
    return None


def leaf_error(error):
    """For anyOf/oneOf errors, an alternative that got deeper into the value explains it best;
    when none did, the value matches no alternative and the schema's description says what fits."""
    while error.context:
        deeper = [e for e in error.context if len(e.absolute_path) > len(error.absolute_path)]
        if not deeper:
            break
        error = max(deeper, key=jsonschema.exceptions.relevance)
    return error


# Keys the schema forbids with `false` subschemas, by what forbids them (see $defs/beat).
FORBIDDEN = {
    "at": ({"every", "from", "to", "count"}, "a beat with `at` happens once; repeating beats use `every`"),
    "to": ({"count"}, "`to` and `count` are alternatives"),
    "start": ({"every"}, "a start happens once"),
    "end": ({"every"}, "an end happens once"),
}


# Keys only one kind of bridge source takes (see $defs/source in the bridge schema).
WEBHOOK_ONLY = {"verify", "secrets", "tolerance", "rate-limit"}
STREAM_ONLY = {"url", "headers", "format", "heartbeat-timeout", "keep-alive", "reconnect", "recover", "ca-file"}


def forbidden_key(error):
    """A `false` subschema failed: which key of the mapping, and why."""
    schema_path = list(error.absolute_schema_path)
    if "dependentSchemas" not in schema_path:
        return None, None
    trigger = schema_path[schema_path.index("dependentSchemas") + 1]
    return FORBIDDEN.get(trigger, (set(), None))


def describe(error, document, root_node):
    """`LINE:COLUMN: JSON-PATH: message` for one validation error."""
    node = node_at(root_node, error.absolute_path)
    message = error.message
    path = error.json_path
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = set(error.schema.get("properties", {}))
        extra = [key for key in error.instance if key not in known]
        if extra:
            key_node = key_node_in(node, extra[0])
            node = key_node or node
            path = path_with(path, extra[0])
            close = difflib.get_close_matches(extra[0], known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else "expected one of: " + ", ".join(sorted(known))
            message = f"unknown key '{extra[0]}'; {hint}"
    elif error.validator in ("oneOf", "anyOf") and isinstance(error.schema, dict) and "description" in error.schema:
        expected = error.schema["description"]
        message = f"{error.instance!r} is not valid here; expected {expected[:1].lower()}{expected[1:]}"
    elif error.schema is False and ("then" in error.absolute_schema_path or "else" in error.absolute_schema_path):
        # A key of the other kind of source (bridge schema: $defs/source's if/then/else), reported
        # at the source's mapping with the key's value.
        stream = "then" in error.absolute_schema_path
        keys = WEBHOOK_ONLY if stream else STREAM_ONLY
        mapping = document_at(document, error.absolute_path)
        candidates = [k for k in (mapping if isinstance(mapping, dict) else {}) if k in keys and mapping[k] == error.instance]
        key = candidates[0] if candidates else "?"
        node = key_node_in(node, key) or node
        path = path_with(path, key)
        if stream:
            message = f"'{key}' applies to webhook sources; this source is kind: stream"
        else:
            message = f"'{key}' applies to stream sources; add kind: stream to read a stream"
    elif error.schema is False:
        # jsonschema reports a `false` property schema at the enclosing mapping, with the value.
        keys, reason = forbidden_key(error)
        mapping = document_at(document, error.absolute_path)
        candidates = [k for k in (mapping if isinstance(mapping, dict) else {})
                      if k in (keys or ()) and mapping[k] == error.instance]
        if candidates:
            key = candidates[0]
            node = key_node_in(node, key) or node
            path = path_with(path, key)
            message = f"'{key}' is not allowed here: {reason}"
        else:
            message = f"{error.instance!r} is not allowed here"
    mark = node.start_mark if node is not None else None
    where = f"{mark.line + 1}:{mark.column + 1}" if mark else "1:1"
    return where, f"{path}: {message}"


def schema_errors(validator, document, root_node):
    problems = []
    for error in validator.iter_errors(document):
        problems.append(describe(leaf_error(error), document, root_node))
    def order(item):
        line, column = item[0].split(":")
        return int(line), int(column)
    return sorted(set(problems), key=order)


def is_bridge_configuration(path):
    """Scenarios/bridge*.yaml and Scenarios/sources/*.yaml are bridge configurations, not scenarios."""
    sources = os.path.join(ROOT, "Scenarios", "sources") + os.sep
    return os.path.basename(path).startswith("bridge") or os.path.abspath(path).startswith(sources)


def check_schema(schema_path=SCHEMA_PATH):
    """Checks a schema file; returns a validator, or None after printing why not."""
    name = rel(schema_path)
    try:
        with open(schema_path, encoding="utf-8") as f:
            schema = json.load(f)
    except (OSError, json.JSONDecodeError) as exc:
        print(f"{name}: error: {exc}")
        return None
    if schema.get("$schema") != DRAFT_2020_12:
        print(f"{name}: error: $schema must be {DRAFT_2020_12}, found {schema.get('$schema')!r}")
        return None
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        print(f"{name}: error: not a valid draft 2020-12 schema: {exc.json_path}: {exc.message}")
        return None
    print(f"ok {name} (draft 2020-12)")
    return jsonschema.Draft202012Validator(schema)


def first_line_for(path, schema_path):
    """The `$schema=` line with the schema's path relative to the file (Docker/bridge.yaml
    names ../Scenarios/liveline-bridge.schema.json)."""
    return "# yaml-language-server: $schema=" + os.path.relpath(schema_path, os.path.dirname(path))


def check_example(validator, path, first_line=FIRST_LINE):
    name = rel(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    failed = False
    if text.split("\n", 1)[0].rstrip() != first_line:
        print(f"{name}:1:1: error: the first line must be `{first_line}`")
        failed = True
    try:
        document, root_node = load_yaml(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{mark.line + 1}:{mark.column + 1}" if mark else "1:1"
        print(f"{name}:{where}: error: YAML: {getattr(exc, 'problem', None) or exc}")
        return False
    problems = schema_errors(validator, document, root_node)
    for where, message in problems:
        print(f"{name}:{where}: error: {message}")
    if problems or failed:
        return False
    print(f"ok {name}")
    return True


def check_invalid(validator, path):
    name = rel(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    expect = EXPECT_RE.search(text)
    try:
        document, root_node = load_yaml(text)
        problems = schema_errors(validator, document, root_node)
    except yaml.YAMLError as exc:
        problems = [("1:1", f"YAML: {getattr(exc, 'problem', None) or exc}")]
    if expect is None:
        state = "rejects" if problems else "accepts"
        print(f"skip {name} (no `# expect-schema:` comment; the schema {state} it)")
        return True
    if expect.group(1) == "invalid":
        if not problems:
            print(f"{name}:1:1: error: broken on purpose, but the schema accepts it (expect-schema: invalid)")
            return False
        found = "; ".join(f"{where}: {message}" for where, message in problems)
        print(f"ok {name} (rejected as expected: {found})")
        return True
    if problems:
        for where, message in problems:
            print(f"{name}:{where}: error: the break should be semantic only (expect-schema: valid), "
                  f"but the schema rejects it: {message}")
        return False
    print(f"ok {name} (schema-valid as expected; `liveline validate` catches the break)")
    return True


def main(argv):
    validator = check_schema()
    bridge_validator = check_schema(BRIDGE_SCHEMA_PATH)
    if validator is None or bridge_validator is None:
        return 1
    if argv:
        examples = [os.path.abspath(p) for p in argv]
        invalid_dir = os.path.join(ROOT, "Scenarios", "invalid") + os.sep
        invalid = [p for p in examples if p.startswith(invalid_dir)]
        examples = [p for p in examples if not p.startswith(invalid_dir)]
    else:
        examples = sorted(glob.glob(os.path.join(ROOT, "Scenarios", "*.yaml")))
        examples += sorted(glob.glob(os.path.join(ROOT, "Scenarios", "sources", "*.yaml")))
        invalid = sorted(glob.glob(os.path.join(ROOT, "Scenarios", "invalid", "*.yaml")))
        if not examples:
            print("error: no Scenarios/*.yaml found")
            return 1
    ok = True
    for path in examples:
        if is_bridge_configuration(path):
            ok = check_example(bridge_validator, path, first_line_for(path, BRIDGE_SCHEMA_PATH)) and ok
        else:
            ok = check_example(validator, path) and ok
    for path in invalid:
        ok = check_invalid(validator, path) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

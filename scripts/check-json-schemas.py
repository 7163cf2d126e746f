#!/usr/bin/env python3
"""Validates JSON payloads against footstepd's schemas (Draft 2020-12), for the MQTT payload tests.

    python3 scripts/check-json-schemas.py SCHEMA_DIR PAYLOAD_DIR

Each payload file is named <topic>-<n>.json and is checked against SCHEMA_DIR/<topic>.schema.json. Prints one
line per problem; exits 1 when there is any, 0 otherwise.
"""
import json
import pathlib
import sys

import jsonschema


def main():
    schemas, payloads = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    problems = 0
    for path in sorted(payloads.glob("*.json")):
        schema = json.loads((schemas / (path.name.split("-")[0] + ".schema.json")).read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        for error in jsonschema.Draft202012Validator(schema).iter_errors(json.loads(path.read_text())):
            print(f"{path.name}: {error.message}")
            problems += 1
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()

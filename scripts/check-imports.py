#!/usr/bin/env python3
"""Checks that Package.swift declares exactly what each target imports.

    scripts/check-imports.py [PACKAGE_DIR]

For every target in Package.swift (its sources in Sources/NAME or Tests/NAME),
compares the modules its Swift files import with the dependencies the
manifest declares (targets by name, products by name). Prints each module
imported but not declared, and each dependency declared but never imported;
exits 1 if there is any. The toolchain's own modules (Foundation, Glibc,
Dispatch, Synchronization, Testing, XCTest, ...) need no declaration.
"""
import os
import re
import sys

SYSTEM = {"Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Darwin", "Dispatch",
          "Synchronization", "Testing", "XCTest", "PackageDescription", "Observation", "_Concurrency",
          "RegexBuilder", "FoundationXML", "Android", "Musl", "WinSDK", "CryptoKit"}


def targets(manifest):
    """-> {name: (kind, declared dependency names)} from the manifest's text."""
    result = {}
    for match in re.finditer(r'\.(target|executableTarget|testTarget|systemLibrary)\(\s*name:\s*"([^"]+)"', manifest):
        kind, name = match.group(1), match.group(2)
        # The call's text: up to the matching closing parenthesis.
        depth, index = 0, match.start()
        while True:
            char = manifest[index]
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    break
            index += 1
        body = manifest[match.end():index]
        declared = set()
        deps = re.search(r'dependencies:\s*\[(.*?)\]\s*(,|$)', body, re.S)
        if deps:
            text = deps.group(1)
            for product in re.finditer(r'\.product\(\s*name:\s*"([^"]+)"', text):
                declared.add(product.group(1))
            text = re.sub(r'\.product\([^)]*\)', "", text)
            declared.update(re.findall(r'"([^"]+)"', text))
        result[name] = (kind, declared)
    return result


def imports(directory):
    found = set()
    for root, _, files in os.walk(directory):
        for file in files:
            if not file.endswith(".swift"):
                continue
            with open(os.path.join(root, file), encoding="utf-8") as handle:
                for line in handle:
                    match = re.match(r'\s*(?:@testable\s+|@_exported\s+|@preconcurrency\s+)*import\s+(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)', line)
                    if match:
                        found.add(match.group(1))
    return found


def main():
    package = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    with open(os.path.join(package, "Package.swift"), encoding="utf-8") as handle:
        manifest = handle.read()
    problems = 0
    for name, (kind, declared) in sorted(targets(manifest).items()):
        if kind == "systemLibrary":
            continue
        directory = os.path.join(package, "Tests" if kind == "testTarget" else "Sources", name)
        if not os.path.isdir(directory):
            print(f"{name}: no directory {os.path.relpath(directory, package)}")
            problems += 1
            continue
        used = imports(directory) - SYSTEM - {name}
        for module in sorted(used - declared):
            print(f"{name}: imports {module}, which Package.swift does not declare")
            problems += 1
        for module in sorted(declared - used):
            print(f"{name}: declares {module}, which no file of it imports")
            problems += 1
    if problems:
        print(f"check-imports: {problems} mismatch(es) between Package.swift and the imports")
        return 1
    print("check-imports: Package.swift declares exactly what each target imports")
    return 0


if __name__ == "__main__":
    sys.exit(main())

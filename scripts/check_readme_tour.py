#!/usr/bin/env python3
"""Type-checks every ```swift block of README.md against the built modules, imports included.

Each block becomes one `func` in a scratch file: its `import` lines go to the top of the file, as
written (a block that uses AuthCoreClients must say so), and the rest is the function's body. The
free names the README leaves to the reader (a key, a message, the app's backend, ...) are declared
first with the types below, as `placeholder()` values: the file is type-checked with
`swiftc -typecheck`, never run. A block that is a Package.swift fragment (it mentions `.package(`) is
skipped. A block that imports an SDK not available here (aws-sdk-swift, Soto) is an adapter: its code,
imports aside, must appear line for line between the `BEGIN ADAPTER`/`END ADAPTER` markers of
Tests/AuthCoreClientsTests/SDKAdapterTests.swift, which compiles and runs it against stand-ins.
Exit 1 with the compiler's messages when a block does not compile.

Usage: python3 scripts/check_readme_tour.py [README.md | Sources/<Module>/<Module>.docc/<Article>.md]
       (after `swift build`; make test runs it on the README and on every DocC article)
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ADAPTER_TESTS = os.path.join(ROOT, "Tests", "AuthCoreClientsTests", "SDKAdapterTests.swift")
SDK_MODULES = {"AWSSDKIdentity", "Smithy", "SotoCore", "Logging", "Metrics"}

# The reader's own values in the tour, by name: their types (declared only when a block uses the
# name without defining it).
FREE_NAMES = {
    "signingKey": "SecureBytes", "message": "[UInt8]", "ikm": "[UInt8]", "salt": "[UInt8]", "a": "BigUInt",
    "pw": "[UInt8]", "id": "String", "secretBytes": "[UInt8]", "token": "String?", "host": "String",
    "clock": "any SigningClock", "clientId": "String", "poolConfiguration": "CognitoUserPoolConfiguration",
    "appSupport": "String", "appSupportDirectory": "String", "bearerToken": "String", "role": "String",
    "longTerm": "Credentials", "appServerURL": "String", "poolId": "String", "user": "TourUser",
    "linkTo": "String?", "developerCredentials": "Credentials", "myBackend": "TourBackend", "password": "SecureBytes",
    "credentials": "Credentials", "request": "SigV4Request",
}

SUPPORT = '''
func placeholder<T>() -> T { fatalError("type-checked, never run") }
struct TourUser { var id: String }
struct TourBackend: Sendable {
    func cognitoToken(linking identityId: String?) async throws -> DeveloperIdentityToken { placeholder() }
}
func store(_ tokens: CognitoTokens) {}
func ask(_ step: CognitoNextStep) -> String { "" }
nonisolated(unsafe) var answer = ""
'''


def blocks(readme):
    text = open(readme, encoding="utf-8").read()
    for number, match in enumerate(re.finditer(r"^```swift\n(.*?)^```", text, re.S | re.M), 1):
        line = text.count("\n", 0, match.start()) + 2
        yield number, line, match.group(1)


def main(argv):
    readme = argv[1] if len(argv) > 1 else os.path.join(ROOT, "README.md")
    imports, functions, checked, matched = set(), [], 0, 0
    adapters = re.findall(r"// BEGIN ADAPTER [^\n]*\n(.*?)// END ADAPTER", open(ADAPTER_TESTS, encoding="utf-8").read(), re.S)
    for number, line, body in blocks(readme):
        if ".package(" in body:
            continue
        if set(re.findall(r"^import (\w+)", body, re.M)) & SDK_MODULES:
            code = "\n".join(l for l in body.splitlines() if not l.startswith("import ") and not l.startswith("// let ")).strip()
            if not any(code == adapter.strip() for adapter in adapters):
                sys.stderr.write("readme-tour: the adapter block at README.md line %d differs from %s\n" % (line, ADAPTER_TESTS))
                return 1
            matched += 1
            continue
        code = []
        for source_line in body.splitlines():
            if re.match(r"\s*import \w+", source_line):
                imports.add(source_line.strip())
            else:
                code.append(source_line)
        body_text = "\n".join(code)
        defined = set(re.findall(r"\b(?:let|var)\s+(\w+)", body_text))
        for names in re.findall(r"\b(?:let|var)\s+\(([^)]*)\)", body_text):
            defined |= {n.strip() for n in names.split(",")}
        defined |= set(re.findall(r"\bcase \.\w+\(let (\w+)\)", body_text))
        used = set(re.findall(r"\b([a-zA-Z_]\w*)\b", body_text))
        declarations = ["    let %s: %s = placeholder()" % (name, kind)
                        for name, kind in sorted(FREE_NAMES.items()) if name in used and name not in defined]
        functions.append("// README.md block %d (line %d)\nfunc readmeBlock%d() async throws {\n%s\n%s\n}\n" % (
            number, line, number, "\n".join(declarations), "\n".join("    " + l for l in code)))
        checked += 1
    # A DocC article's blocks use its own module (and AuthCore's vocabulary) without importing them.
    catalog = re.search(r"Sources/(\w+)/\1\.docc/", os.path.abspath(readme))
    if catalog:
        imports |= {"import " + catalog.group(1), "import AuthCore"}
    if "import AuthCoreClients" not in imports:
        imports.add("import AuthCoreClients")  # for the support declarations only when no block imports it
    source = "\n".join(sorted(imports)) + "\n" + SUPPORT + "\n".join(functions)
    build = os.path.join(ROOT, ".build", "debug")
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "ReadmeTour.swift")
        with open(path, "w") as f:
            f.write(source)
        command = [os.environ.get("SWIFTC") or "swiftc", "-typecheck", "-swift-version", "6", path, "-I", os.path.join(build, "Modules"),
                   "-Xcc", "-fmodule-map-file=" + os.path.join(ROOT, "Sources/CAuthCoreGMP/module.modulemap"),
                   "-Xcc", "-fmodule-map-file=" + os.path.join(ROOT, "Sources/CAuthCoreLibCrypto/module.modulemap"),
                   "-Xcc", "-fmodule-map-file=" + os.path.join(ROOT, "Sources/CAuthCoreLibSSL/module.modulemap"),
                   "-Xcc", "-fmodule-map-file=" + os.path.join(ROOT, "Sources/CAuthCoreHiredis/module.modulemap"),
                   "-Xcc", "-fmodule-map-file=" + os.path.join(ROOT, "Sources/CAuthCoreMicroHTTPD/module.modulemap"),
                   # A regular C target: SwiftPM writes its module map into the build directory.
                   "-Xcc", "-fmodule-map-file=" + os.path.join(build, "CAuthCoreBigNum.build", "module.modulemap")]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            sys.stderr.write(result.stderr)
            sys.stderr.write("\nreadme-tour: a block of %s does not compile (scratch source below)\n" % os.path.relpath(readme, ROOT))
            for number, text in enumerate(source.splitlines(), 1):
                sys.stderr.write("%4d  %s\n" % (number, text))
            return 1
    print("readme-tour: %d blocks of %s type-check against the built modules; %d adapter blocks match "
          "SDKAdapterTests.swift" % (checked, os.path.relpath(readme, ROOT), matched))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

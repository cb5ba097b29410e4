// swift-tools-version:6.2
//
// AuthCore: SRP-6a, hashing/MACs and request signing for auth clients, over GMP and OpenSSL 3.
// No package dependencies; the C libraries come in as system-library targets.

import PackageDescription

// Warnings are errors in the project's own build (`make build`/`make test` pass -warnings-as-errors),
// not here: a setting in the manifest would also apply when another package depends on this one,
// and a newer compiler's new warning would then break that package's build.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "AuthCore",
    // Linux is what CI tests; macOS with Homebrew's gmp and openssl@3 is expected to build (README);
    // the other Apple platforms ship no GMP or libcrypto.
    platforms: [.macOS(.v15)],  // Synchronization's Atomic (GMPRuntime, the server's accept policy) needs macOS 15
    products: [
        .library(name: "AuthCore", targets: ["AuthCore"]),
        .library(name: "AuthCoreHTTP", targets: ["AuthCoreHTTP"]),
        .library(name: "AuthCoreClients", targets: ["AuthCoreClients"]),
        .library(name: "AuthCoreVectors", targets: ["AuthCoreVectors"]),
        .library(name: "AuthCoreServer", targets: ["AuthCoreServer"]),
        .executable(name: "authcore", targets: ["AuthCoreCLI"]),
        .executable(name: "authcore-bench", targets: ["AuthCoreBenchmarks"]),
        .executable(name: "authcore-fuzz", targets: ["AuthCoreFuzz"]),
        .executable(name: "authcore-ctcheck", targets: ["AuthCoreConstantFlow"]),
    ],
    targets: [
        // MARK: - System libraries

        .systemLibrary(
            name: "CAuthCoreGMP",
            pkgConfig: "gmp",
            providers: [.apt(["libgmp-dev"]), .brew(["gmp"])]
        ),
        .systemLibrary(
            name: "CAuthCoreLibCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),
        // TLS for AuthCoreHTTP's HTTP/1.1 client transport (a transport that owns its read loop is
        // what bounds peak memory, design.md).
        .systemLibrary(
            name: "CAuthCoreLibSSL",
            pkgConfig: "libssl",
            providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]
        ),

        // hiredis, Redis's C client, for AuthCoreServer's shared handshake store (Debian
        // libhiredis-dev; no pkg-config: its flags carry -D_FILE_OFFSET_BITS=64, which SwiftPM
        // refuses, and the headers are found under /usr/include).
        .systemLibrary(name: "CAuthCoreHiredis"),
        // libmicrohttpd, the HTTP server under `authcore serve` (Debian libmicrohttpd-dev; its own
        // thread pool, TLS through GnuTLS inside the library).
        .systemLibrary(
            name: "CAuthCoreMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]
        ),

        // MARK: - Targets

        // AuthCore's constant-time big-integer algorithms over GMP's mpn layer (Montgomery
        // arithmetic, the fixed-base comb), in C beside the thin system-library shim.
        .target(
            name: "CAuthCoreBigNum",
            dependencies: ["CAuthCoreGMP"]
        ),
        .target(
            name: "AuthCore",
            dependencies: ["CAuthCoreGMP", "CAuthCoreBigNum", "CAuthCoreLibCrypto"],
            swiftSettings: swiftSettings
        ),
        // The HTTP layer (design.md, "Layers"): the request and response messages both ends use and
        // their bodies, the network policy, the JSON style, the app server's wire formats, and the
        // default client transport (HTTP/1.1 over its own sockets and libssl, pooled, proxies,
        // Happy Eyeballs, the executor for blocking calls). Between AuthCore and its two users.
        .target(
            name: "AuthCoreHTTP",
            dependencies: ["AuthCore", "CAuthCoreLibSSL"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AuthCoreClients",
            dependencies: ["AuthCore", "AuthCoreHTTP"],
            swiftSettings: swiftSettings
        ),
        // The app server's half: the SRP login service and its stores (issue 17).
        .target(
            name: "AuthCoreServer",
            dependencies: ["AuthCore", "AuthCoreHTTP", "AuthCoreClients", "CAuthCoreHiredis", "CAuthCoreMicroHTTPD"],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "AuthCoreVectors",
            dependencies: ["AuthCore"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "AuthCoreCLI",
            dependencies: ["AuthCore", "AuthCoreClients", "AuthCoreServer", "AuthCoreVectors"],
            swiftSettings: swiftSettings
        ),

        // MARK: - Benchmarks

        .target(
            name: "CAuthCoreBaselines",
            dependencies: ["CAuthCoreGMP", "CAuthCoreBigNum", "CAuthCoreLibCrypto"],
            path: "Benchmarks/CAuthCoreBaselines"
        ),
        .executableTarget(
            name: "AuthCoreBenchmarks",
            dependencies: ["AuthCore", "AuthCoreClients", "AuthCoreServer", "CAuthCoreBaselines"],
            path: "Benchmarks/AuthCoreBenchmarks",
            swiftSettings: swiftSettings
        ),

        // MARK: - Fuzzing

        // Every fuzz target in one executable: a corpus replayer in a plain build, a libFuzzer binary
        // when built with `-sanitize=fuzzer -DAUTHCORE_LIBFUZZER` (`make fuzz`).
        .executableTarget(
            name: "AuthCoreFuzz",
            dependencies: [
                "AuthCore", "AuthCoreClients", "AuthCoreServer", "AuthCoreVectors", "AuthCoreReferenceModels",
            ],
            path: "Fuzz/AuthCoreFuzz",
            swiftSettings: swiftSettings
        ),

        // MARK: - Secret-hygiene gates

        // Constant-flow flows for Valgrind memcheck (`make ctgrind`, built with
        // -DAUTHCORE_CONSTANT_FLOW_CHECK) and instruction counts per secret class (`make ct-count`).
        .executableTarget(
            name: "AuthCoreConstantFlow",
            dependencies: ["AuthCore", "AuthCoreServer", "CAuthCoreBigNum", "CAuthCoreLibCrypto"],
            path: "Checks/AuthCoreConstantFlow",
            swiftSettings: swiftSettings
        ),

        // MARK: - Tests

        .target(
            name: "AuthCoreTestSupport",
            dependencies: ["AuthCore", "AuthCoreHTTP", "AuthCoreClients"],
            path: "Tests/AuthCoreTestSupport",
            swiftSettings: swiftSettings
        ),
        // Slow oracles written from the specifications (SigV4, OSS), shared by the differential
        // tests and the fuzzer.
        .target(
            name: "AuthCoreReferenceModels",
            dependencies: ["AuthCore"],
            path: "Tests/AuthCoreReferenceModels",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthCoreTests",
            dependencies: ["AuthCore", "AuthCoreTestSupport", "AuthCoreReferenceModels"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthCoreHTTPTests",
            dependencies: ["AuthCore", "AuthCoreHTTP", "AuthCoreClients", "AuthCoreTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthCoreClientsTests",
            dependencies: ["AuthCore", "AuthCoreHTTP", "AuthCoreClients", "AuthCoreTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthCoreIntegrationTests",
            dependencies: ["AuthCore", "AuthCoreClients", "AuthCoreServer", "AuthCoreCLI", "AuthCoreTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthCoreServerTests",
            dependencies: ["AuthCore", "AuthCoreClients", "AuthCoreServer", "AuthCoreTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthCoreVectorsTests",
            dependencies: ["AuthCore", "AuthCoreVectors", "AuthCoreCLI", "AuthCoreTestSupport"],
            swiftSettings: swiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

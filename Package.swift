// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "footstepd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "footstepctl", targets: ["footstepctl"]),
        .executable(name: "footstepd", targets: ["footstepd"]),
        .executable(name: "footstep-collector", targets: ["footstep-collector"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.20"),
        // Imported by FootstepAPI's server beside Hummingbird (which depends on them too).
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        // System libraries (Debian -dev packages; see .ci/run).
        .systemLibrary(name: "CAlsa", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr", providers: [.apt(["libsoxr-dev"])]),
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CCairo", pkgConfig: "cairo", providers: [.apt(["libcairo2-dev"])]),
        .systemLibrary(name: "CMosquitto", pkgConfig: "libmosquitto", providers: [.apt(["libmosquitto-dev"])]),

        // Shared vocabulary (event kinds, footstep types, intensity, level bands).
        .target(name: "FootstepCore"),
        // Signal processing: filters, weighting, levels, FFT, onset detection.
        .target(name: "FootstepDSP", dependencies: ["CFFTW"]),
        // Audio sources (ALSA, file, synthetic, rate conversion) and the footstep synthesizer.
        .target(name: "FootstepAudio", dependencies: ["CAlsa", "CSndfile", "CSoxr", "FootstepCore"]),
        // Per-event features, the footstep model, intensity, gait bouts.
        .target(
            name: "FootstepClassifier",
            dependencies: ["FootstepCore", "FootstepDSP"],
            resources: [.copy("Resources")]
        ),
        // The analysis pipeline: source -> prefilter -> levels -> detector -> classifier -> events.
        .target(name: "FootstepAnalysis", dependencies: ["FootstepAudio", "FootstepClassifier", "FootstepCore", "FootstepDSP"]),
        // The evidence store: GRDB (SQLite, WAL), migrations, records, queries, hash chain.
        .target(
            name: "FootstepStore",
            dependencies: [
                "FootstepCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The control socket's wire types (requests, responses, paths, JSON coding),
        // shared by server and client; Foundation and FootstepCore only.
        .target(name: "FootstepWire", dependencies: ["FootstepCore"]),
        // The control socket's client (HTTP/1.1 over AF_UNIX through NIO): links neither
        // the store nor the server.
        .target(
            name: "FootstepClient",
            dependencies: [
                "FootstepCore", "FootstepWire",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The wire form of each stored record (store records -> wire types).
        .target(name: "FootstepStoreWire", dependencies: ["FootstepStore", "FootstepWire"]),
        // The control socket's server: Hummingbird on the Unix socket, peer-credential
        // authorisation, the routes (mapping store records to wire types), metrics.
        .target(
            name: "FootstepAPI",
            dependencies: [
                "FootstepCore", "FootstepStore", "FootstepStoreWire", "FootstepWire",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // MQTT through libmosquitto: the client, the store's outbox published in order with QoS 1, the payloads,
        // Home Assistant discovery.
        .target(
            name: "FootstepMQTT",
            dependencies: [
                "CMosquitto", "FootstepCore", "FootstepStore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The fleet collector: sensors' MQTT messages into PostgreSQL, each sensor's chain verified.
        .target(
            name: "FootstepCollector",
            dependencies: [
                "FootstepMQTT",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // footstepd.toml: the configuration's keys, defaults and ranges, its parser and renderer.
        .target(
            name: "FootstepConfiguration",
            dependencies: [
                "FootstepAnalysis", "FootstepAudio", "FootstepClassifier", "FootstepCore", "FootstepDSP",
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        // The daemon's wiring: sessions, sd_notify/watchdog, journald logging.
        .target(
            name: "FootstepDaemon",
            dependencies: [
                "CSystemd", "FootstepAPI", "FootstepAnalysis", "FootstepAudio", "FootstepClassifier",
                "FootstepConfiguration", "FootstepCore", "FootstepDSP", "FootstepMQTT", "FootstepStore", "FootstepWire",
                // The pending journal's checksums.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // Evidence statistics, rule checks and the report renderers (HTML, PDF through cairo, CSV, JSON).
        .target(name: "FootstepReports", dependencies: ["CCairo", "FootstepCore"]),
        // Test support: scenarios with ground truth, ALSA file-plugin PCMs, temporary directories.
        .target(name: "FootstepTesting", dependencies: ["FootstepAudio", "FootstepAnalysis", "FootstepClassifier"]),

        .executableTarget(
            name: "footstepctl",
            dependencies: [
                "FootstepAnalysis", "FootstepAudio", "FootstepClassifier", "FootstepConfiguration",
                "FootstepClient", "FootstepCore", "FootstepReports", "FootstepStore", "FootstepStoreWire", "FootstepWire",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ZIPFoundation", package: "ZIPFoundation"),
                // footstepctl ui: the local dashboard.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),

        .executableTarget(
            name: "footstepd",
            dependencies: [
                "FootstepConfiguration", "FootstepCore", "FootstepDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "footstep-collector",
            dependencies: [
                "FootstepCollector", "FootstepCore", "FootstepMQTT",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ]
        ),
        // Writes the classifier's training and validation feature tables (tools/train_classifier.py).
        .executableTarget(
            name: "footstep-dataset",
            dependencies: [
                "FootstepAnalysis", "FootstepAudio", "FootstepClassifier", "FootstepCore", "FootstepDSP",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(
            name: "footstep-bench",
            dependencies: [
                "FootstepAnalysis", "FootstepAudio", "FootstepClassifier", "FootstepCollector", "FootstepConfiguration",
                "FootstepCore", "FootstepDaemon", "FootstepDSP", "FootstepMQTT", "FootstepStore", "FootstepTesting",
                "FootstepWire",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),

        .testTarget(name: "FootstepDSPTests", dependencies: ["FootstepCore", "FootstepDSP"]),
        .testTarget(name: "FootstepAudioTests", dependencies: ["CSndfile", "FootstepAudio", "FootstepCore", "FootstepTesting"]),
        .testTarget(
            name: "FootstepAnalysisTests",
            dependencies: ["FootstepAnalysis", "FootstepAudio", "FootstepClassifier", "FootstepCore", "FootstepDSP", "FootstepTesting"]),
        .testTarget(
            name: "FootstepStoreTests",
            dependencies: [
                "FootstepCore", "FootstepStore", "FootstepTesting",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(
            name: "FootstepMQTTTests",
            dependencies: [
                "FootstepCollector", "FootstepCore", "FootstepMQTT", "FootstepStore", "FootstepTesting",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "FootstepReportsTests",
            dependencies: ["CCairo", "FootstepAudio", "FootstepCore", "FootstepReports", "FootstepStore", "FootstepTesting"]),
        .testTarget(
            name: "FootstepClassifierTests",
            dependencies: ["FootstepAnalysis", "FootstepAudio", "FootstepClassifier", "FootstepCore", "FootstepDSP"],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "FootstepDaemonTests",
            dependencies: [
                "CSndfile", "FootstepAnalysis", "FootstepAudio", "FootstepClassifier", "FootstepConfiguration", "FootstepCore",
                "FootstepDaemon", "FootstepDSP", "FootstepStore", "FootstepTesting", "FootstepWire",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "FootstepAPITests",
            dependencies: [
                "FootstepAPI", "FootstepClient", "FootstepConfiguration", "FootstepCore", "FootstepDaemon", "FootstepStore",
                "FootstepStoreWire", "FootstepTesting", "FootstepWire",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)

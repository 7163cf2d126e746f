// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "footstepd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "footstepctl", targets: ["footstepctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // System libraries (Debian -dev packages; see .ci/run).
        .systemLibrary(name: "CAlsa", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CFFTW", pkgConfig: "fftw3f", providers: [.apt(["libfftw3-dev"])]),

        // Shared vocabulary (event kinds, footstep types, intensity, level bands).
        .target(name: "FootstepCore"),
        // Signal processing: filters, weighting, levels, FFT, onset detection.
        .target(name: "FootstepDSP", dependencies: ["CFFTW", "FootstepCore"]),
        // Audio sources (ALSA, file, synthetic) and the footstep synthesizer.
        .target(name: "FootstepAudio", dependencies: ["CAlsa", "CSndfile", "FootstepCore", "FootstepDSP"]),
        // Per-event features, the footstep model, intensity, gait bouts.
        .target(name: "FootstepClassifier", dependencies: ["FootstepCore", "FootstepDSP"]),
        // The analysis pipeline: source -> prefilter -> levels -> detector -> classifier -> events.
        .target(name: "FootstepAnalysis", dependencies: ["FootstepAudio", "FootstepDSP", "FootstepClassifier"]),
        // Test support: scenarios with ground truth, ALSA file-plugin PCMs, temporary directories.
        .target(name: "FootstepTesting", dependencies: ["FootstepAudio", "FootstepAnalysis", "CAlsa"]),

        .executableTarget(
            name: "footstepctl",
            dependencies: [
                "FootstepAnalysis", "FootstepAudio", "FootstepClassifier",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        .testTarget(name: "FootstepDSPTests", dependencies: ["FootstepDSP"]),
        .testTarget(name: "FootstepAudioTests", dependencies: ["FootstepAudio", "FootstepTesting"]),
        .testTarget(name: "FootstepAnalysisTests", dependencies: ["FootstepAnalysis", "FootstepTesting"]),
    ]
)

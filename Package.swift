// swift-tools-version:6.0
import PackageDescription

// Jolt: accelerometer gestures and alarms for a Raspberry Pi.
//
// Layering (see docs/architecture.md):
//   JoltCore     pure fixed-point detection and the alarm state machine; no Foundation, no Glibc,
//                builds in Embedded Swift for a Cortex-M.
//   JoltTrace    the jolt-trace v1 format: a streaming parser from bytes to samples, and a writer.
//   JoltDrivers  the I2C bus protocol, the `Sensor` protocol every chip implements, and the chips
//                (Chips/<CHIP>/: register map, driver, sensor), generic over the bus; never
//                names /dev. Also Embedded-clean.
//   JoltMotion   physical models of motion (shakes, flips, knocks, walking…) as sample streams,
//                for the simulator, the evaluation corpus, the benchmark and the tests.
//   JoltCorpus   the labelled evaluation corpus (generated from JoltMotion's models) and the
//                scoring behind `jolt eval`.
//   JoltSim      register-level simulated chips (Chips/: each chip's twin) on a simulated bus,
//                with fault injection.
//   JoltChips    the chip registry (one line per chip), the opened-chip type (oversampling
//                the slow rates) and the probe.
//   JoltEngine   the one sampling engine: clock, sensor, supervisor, timestamps, mount,
//                detector set → events. Knows nothing of simulation or Linux.
//   JoltLinux    the Linux side: one wrapper per syscall (mockable in debug builds), /dev/i2c-*,
//                /dev/gpiochip*, signals, sockets, processes.
//   JoltMQTT     the link to an MQTT broker (libmosquitto): outbox on disk, reconnection.
//   JoltBuildInfo the version and the git commit of the build (the BuildInfo plugin writes it).
//   JoltJSON     JSON: the parser behind the configuration's line-and-field errors, and the one
//                encoder every JSON text Jolt writes goes through.
//   The app, one target per room, each using only the rooms below it (the compiler enforces it:
//   a target sees only what it depends on, and across targets only what is `package`):
//   JoltSupport  errors and exit codes, the log, outputs that never block, atomic files.
//   JoltConfig   the board profile: one loader with the file, line and field of every error, and
//                docs/config.md made from it.
//   JoltActions  event records (the --json schema), outputs and inputs on the GPIO character
//                device, the action thread.
//   JoltControl  who may do what: the control socket, MQTT, Home Assistant discovery, systemd's
//                notify; the alarm's state on disk.
//   JoltBoard    an opened board (`Board`) and the one on a Pi (`LinuxBoard`), the run's clock,
//                trace files.
//   JoltRun      `jolt run`: the loop, the sink, the alarm's controller, the event router, the
//                requests. It links no simulator.
//   JoltSimBoard the simulated board (JoltSim's twins, JoltMotion's motions, faults), linked only
//                where a simulated board is opened.
//   JoltApp      the commands; what the `jolt` executable runs.
//   JoltFuzz     fuzz targets for the trace reader, the board loader and the drivers.
let debugMocking: [SwiftSetting] = [.define("ENABLE_MOCKING", .when(configuration: .debug))]

let package = Package(
    name: "Jolt",
    products: [
        .executable(name: "jolt", targets: ["jolt"]),
        .executable(name: "jolt-bench", targets: ["jolt-bench"]),
    ],
    targets: [
        .target(name: "JoltCore"),
        // The version and the git commit of the build (`jolt --version`), written by a plugin.
        .plugin(name: "BuildInfo", capability: .buildTool()),
        .target(name: "JoltBuildInfo", plugins: ["BuildInfo"]),
        .target(name: "JoltTrace", dependencies: ["JoltCore"]),
        .target(name: "JoltDrivers"),
        .target(name: "JoltMotion", dependencies: ["JoltCore"]),
        // The phone algorithms and the tamper baselines, kept to compare Jolt's detectors with:
        // replay, plot, the evaluation and the benchmark use them; the service does not.
        .target(name: "JoltBaselines", dependencies: ["JoltCore", "JoltEngine"]),
        .target(name: "JoltSim", dependencies: ["JoltCore", "JoltDrivers", "JoltMotion"]),
        .target(name: "JoltCorpus", dependencies: ["JoltCore", "JoltBaselines", "JoltTrace", "JoltMotion"]),
        .target(name: "JoltChips", dependencies: ["JoltCore", "JoltDrivers"]),
        .target(name: "JoltJSON"),
        .target(name: "JoltEngine", dependencies: ["JoltCore", "JoltDrivers", "JoltChips"]),
        .systemLibrary(name: "CI2C", path: "hal/CI2C", providers: [.apt(["libi2c-dev"])]),
        .systemLibrary(name: "CGPIO", path: "hal/CGPIO"),
        .systemLibrary(name: "CLinux", path: "hal/CLinux"),
        .systemLibrary(name: "CMosquitto", path: "hal/CMosquitto", providers: [.apt(["libmosquitto-dev"])]),
        .target(
            name: "JoltLinux",
            dependencies: ["JoltDrivers", "CI2C", "CGPIO", "CLinux"],
            swiftSettings: debugMocking
        ),
        .target(name: "JoltMQTT", dependencies: ["JoltLinux", "CMosquitto"]),
        .target(name: "JoltSupport", dependencies: ["JoltDrivers", "JoltLinux"]),
        .target(name: "JoltConfig", dependencies: ["JoltSupport", "JoltChips", "JoltCore", "JoltDrivers", "JoltJSON", "JoltLinux", "JoltTrace"]),
        .target(name: "JoltActions", dependencies: ["JoltSupport", "JoltConfig", "JoltCore", "JoltJSON", "JoltLinux", "JoltTrace"]),
        .target(name: "JoltControl", dependencies: ["JoltSupport", "JoltConfig", "JoltActions", "JoltBuildInfo", "JoltCore", "JoltJSON", "JoltLinux", "JoltMQTT", "JoltTrace"]),
        .target(name: "JoltBoard", dependencies: ["JoltSupport", "JoltConfig", "JoltActions", "JoltChips", "JoltCore", "JoltDrivers", "JoltEngine", "JoltLinux", "JoltTrace"]),
        .target(
            name: "JoltRun",
            dependencies: ["JoltSupport", "JoltConfig", "JoltActions", "JoltControl", "JoltBoard", "JoltBuildInfo", "JoltChips", "JoltCore", "JoltDrivers", "JoltEngine", "JoltJSON", "JoltLinux"]
        ),
        .target(
            name: "JoltSimBoard",
            dependencies: ["JoltSupport", "JoltConfig", "JoltActions", "JoltBoard", "JoltChips", "JoltCore", "JoltDrivers", "JoltLinux", "JoltMotion", "JoltSim", "JoltTrace"]
        ),
        .target(
            name: "JoltApp",
            dependencies: ["JoltSupport", "JoltConfig", "JoltActions", "JoltControl", "JoltBoard", "JoltRun", "JoltSimBoard",
                           "JoltCore", "JoltBaselines", "JoltTrace", "JoltDrivers", "JoltChips", "JoltEngine", "JoltJSON", "JoltMotion", "JoltSim", "JoltLinux", "JoltCorpus", "JoltMQTT", "JoltBuildInfo"],
            swiftSettings: debugMocking
        ),
        .executableTarget(name: "jolt", dependencies: ["JoltApp"]),
        .executableTarget(name: "jolt-corpus", dependencies: ["JoltCorpus", "JoltTrace"]),
        // Fuzz targets: a library the tests also replay, and one thin executable per target
        // (scripts/fuzz builds them with -sanitize=fuzzer).
        .target(name: "JoltFuzz", dependencies: ["JoltApp", "JoltSupport", "JoltConfig", "JoltBoard", "JoltChips", "JoltCore", "JoltDrivers", "JoltJSON", "JoltTrace", "CLinux", "CFuzzer"]),
        .target(name: "CFuzzer"),
        .executableTarget(name: "fuzz-trace", dependencies: ["JoltFuzz"]),
        .executableTarget(name: "fuzz-config", dependencies: ["JoltFuzz"]),
        .executableTarget(name: "fuzz-drivers", dependencies: ["JoltFuzz"]),
        .target(name: "CAllocCount"),
        .executableTarget(name: "jolt-bench", dependencies: ["JoltCore", "JoltBaselines", "JoltMotion", "JoltCorpus", "JoltTrace", "JoltJSON", "CAllocCount"]),
        // Tests, one target per layer: the core's build against the core alone, the drivers'
        // against the drivers, the registry, the simulated chips and a mock bus, the engine's
        // against the engine; the end-to-end tests (JoltTests) drive the app and the binary.
        .target(name: "JoltTestSupport", dependencies: ["JoltCore"], path: "Tests/JoltTestSupport"),
        .testTarget(name: "JoltCoreTests", dependencies: ["JoltCore", "JoltBaselines", "JoltTrace", "JoltTestSupport"]),
        .testTarget(name: "JoltDriverTests", dependencies: ["JoltDrivers", "JoltChips", "JoltSim", "JoltCore", "JoltMotion"]),
        .testTarget(name: "JoltEngineTests", dependencies: ["JoltEngine", "JoltChips", "JoltDrivers", "JoltSim", "JoltCore"]),
        .testTarget(
            name: "JoltTests",
            dependencies: ["JoltCore", "JoltTrace", "JoltDrivers", "JoltChips", "JoltEngine", "JoltMotion", "JoltSim", "JoltLinux", "JoltApp", "JoltCorpus", "JoltFuzz", "JoltJSON", "JoltMQTT", "JoltBuildInfo", "JoltTestSupport",
                           "JoltSupport", "JoltConfig", "JoltActions", "JoltControl", "JoltBoard", "JoltRun", "JoltSimBoard"],
            swiftSettings: debugMocking
        ),
    ],
    swiftLanguageModes: [.v6]
)

/// The floating-point type of the benchmark's floating-point twins (`FloatDetectors.swift`,
/// `FloatTamper.swift`): `Double` here; scripts/cortex-m-bench also builds them with `Float`.
typealias Real = Double

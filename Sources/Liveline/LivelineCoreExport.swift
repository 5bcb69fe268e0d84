/// `import Liveline` brings the core with it (the engine, payloads, clocks, the scenario model),
/// so code that reads scenario files needs one import. A backend that only sends pushes imports
/// `LivelineCore` (through `LivelineAPNs`) and never compiles the YAML reader.
@_exported import LivelineCore

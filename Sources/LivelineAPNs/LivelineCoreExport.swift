/// `import LivelineAPNs` brings the payload and header types its API speaks in (`PushHeaders`,
/// `APSEncoder`, `ReferenceDate`, `Scenario` for `LiveSession`), so a backend needs one import.
@_exported import LivelineCore

public import Testing

/// Every way Swift prints a value: `description`, `String(reflecting:)`, `dump` and the mirror's
/// children (swift-testing failure messages walk values through `Mirror` too).
public func everyPrintedForm(of value: Any) -> String {
    var dumped = ""
    dump(value, to: &dumped, maxDepth: 12)
    let children = Mirror(reflecting: value).children.map { "\($0.label ?? ""): \(String(reflecting: $0.value))" }
    return [String(describing: value), String(reflecting: value), dumped, children.joined(separator: "\n")].joined(
        separator: "\n"
    )
}

/// Records an issue for every secret that appears in any printed form of `value`.
public func expectNoSecret(_ value: Any, _ secrets: [String], sourceLocation: SourceLocation = #_sourceLocation) {
    let printed = everyPrintedForm(of: value)
    for secret in secrets {
        #expect(
            !printed.contains(secret),
            "printed form leaks \(secret.prefix(6))…: \(printed)",
            sourceLocation: sourceLocation
        )
    }
}

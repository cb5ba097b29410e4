/// Every way Swift prints a value: `description`, `String(reflecting:)`, `dump` and the mirror's
/// children (swift-testing failure messages walk values through `Mirror` too).
public func everyPrintedForm(of value: Any) -> String {
    var dumped = ""
    dump(value, to: &dumped, maxDepth: 12)
    let children = Mirror(reflecting: value).children.map { "\($0.label ?? ""): \(String(reflecting: $0.value))" }
    return [String(describing: value), String(reflecting: value), dumped, children.joined(separator: "\n")].joined(separator: "\n")
}

/// A usage error: exit status 2, one line on stderr.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A failure: exit status 1, one line on stderr (plus optional detail lines).
struct CommandFailure: Error {
    let message: String
    let detail: String?
    init(_ message: String, detail: String? = nil) {
        self.message = message
        self.detail = detail
    }
}

/// Help was asked for: print it and exit 0.
struct HelpRequested: Error { let text: String }

/// A declared option of a command.
struct OptionSpec {
    enum Kind { case flag, value, repeatedValue }
    let names: [String]  // e.g. ["-X", "--method"]
    let kind: Kind
    var key: String { names.last! }  // invariant: every spec has at least one name (declared in code)
}

/// Parsed arguments: options by their long name, and positionals.
struct ParsedArguments {
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func value(_ key: String) -> String? { values[key]?.last }
    func all(_ key: String) -> [String] { values[key] ?? [] }
    func has(_ key: String) -> Bool { flags.contains(key) }

    func required(_ key: String) throws(UsageError) -> String {
        guard let v = value(key), !v.isEmpty else { throw UsageError("missing required option \(key)") }
        return v
    }

    func integer(_ key: String, expecting what: String = "an integer") throws(UsageError) -> Int? {
        guard let text = value(key) else { return nil }
        guard let n = Int(text) else { throw UsageError("\(key) expects \(what), got '\(text)'") }
        return n
    }
}

/// Parses `arguments` against `specs` (`--name value`, `--name=value`, short `-X value`, `--` ends options).
func parseArguments(_ arguments: ArraySlice<String>, specs: [OptionSpec], help: String) throws -> ParsedArguments {
    var parsed = ParsedArguments()
    var index = arguments.startIndex
    var optionsEnded = false
    while index < arguments.endIndex {
        let argument = arguments[index]
        index += 1
        if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
            parsed.positionals.append(argument)
            continue
        }
        if argument == "--" {
            optionsEnded = true
            continue
        }
        if argument == "-h" || argument == "--help" { throw HelpRequested(text: help) }
        var name = argument
        var inlineValue: String?
        if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
            name = String(argument[..<eq])
            inlineValue = String(argument[argument.index(after: eq)...])
        }
        guard let spec = specs.first(where: { $0.names.contains(name) }) else {
            throw UsageError("unknown option \(name)")
        }
        switch spec.kind {
        case .flag:
            if inlineValue != nil { throw UsageError("\(name) takes no value") }
            parsed.flags.insert(spec.key)
        case .value, .repeatedValue:
            let value: String
            if let inlineValue {
                value = inlineValue
            } else {
                guard index < arguments.endIndex else { throw UsageError("\(name) needs a value") }
                value = arguments[index]
                index += 1
            }
            if spec.kind == .value, parsed.values[spec.key] != nil {
                throw UsageError("\(name) given more than once")
            }
            parsed.values[spec.key, default: []].append(value)
        }
    }
    return parsed
}

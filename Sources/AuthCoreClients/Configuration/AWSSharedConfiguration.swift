public import AuthCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The environment the configuration readers see: the process's by default, a dictionary in tests.
///
/// An empty variable counts as unset (``subscript(_:)``) except where botocore tests only that a name
/// is set (``present(_:)``: `AWS_PROFILE=""` names a profile called "", which does not exist).
public struct ConfigurationEnvironment: Sendable {
    let lookup: @Sendable (String) -> String?

    /// An environment read through `lookup`.
    public init(lookup: @escaping @Sendable (String) -> String?) { self.lookup = lookup }

    /// Exactly these variables.
    public init(_ values: [String: String]) { self.lookup = { values[$0] } }

    /// The process environment.
    public static let process = ConfigurationEnvironment(lookup: EnvironmentCredentialsProvider.processEnvironment)

    /// The variable's value; nil when unset or empty.
    public subscript(_ name: String) -> String? {
        guard let value = lookup(name), !value.isEmpty else { return nil }
        return value
    }

    /// The variable's value when it is set, even to the empty string (where botocore asks whether a
    /// name is `in os.environ`: the profile names, the web identity and container variables).
    public func present(_ name: String) -> String? { lookup(name) }

    /// A true-ish flag (`true`, case-insensitive), as botocore reads `AWS_EC2_METADATA_DISABLED`.
    func isTrue(_ name: String) -> Bool { self[name]?.lowercased() == "true" }

    /// `path` with `$NAME`/`${NAME}` replaced where NAME is set and a leading `~` or `~/` replaced by
    /// `HOME`: Python's `os.path.expandvars` then `os.path.expanduser`, as botocore expands file paths.
    package func expandedPath(_ path: String) -> String {
        var result: [UInt8] = []
        var bytes = Array(path.utf8)[...]
        func isNameByte(_ b: UInt8) -> Bool {
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b)
                || b == UInt8(ascii: "_")
        }
        while let byte = bytes.first {
            guard byte == UInt8(ascii: "$") else {
                result.append(byte)
                bytes = bytes.dropFirst()
                continue
            }
            let rest = bytes.dropFirst()
            if rest.first == UInt8(ascii: "{"), let close = rest.firstIndex(of: UInt8(ascii: "}")) {
                let name = String(decoding: rest[(rest.startIndex + 1)..<close], as: UTF8.self)
                if let value = lookup(name) {
                    result += Array(value.utf8)
                } else {
                    result += Array(bytes[...close])
                }
                bytes = rest[(close + 1)...]
                continue
            }
            let nameBytes = rest.prefix(while: isNameByte)
            let name = String(decoding: nameBytes, as: UTF8.self)
            if !nameBytes.isEmpty, let value = lookup(name) {
                result += Array(value.utf8)
            } else {
                result.append(byte)
                result += Array(nameBytes)
            }
            bytes = rest.dropFirst(nameBytes.count)
        }
        var expanded = String(decoding: result, as: UTF8.self)
        if expanded == "~" || expanded.hasPrefix("~/"), let home = self["HOME"] ?? Self.passwordDatabaseHome() {
            expanded = home + expanded.dropFirst()
        }
        return expanded
    }

    /// The current user's home from the password database (Python's `expanduser` without `HOME`).
    static func passwordDatabaseHome() -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil,
            let directory = entry.pw_dir
        else { return nil }
        let home = String(cString: directory)
        return home.isEmpty ? nil : home
    }
}

/// One profile of the AWS shared files: the config file's `[profile NAME]` (or `[default]`) section
/// with the credentials file's `[NAME]` section over it.
public struct AWSProfile: Sendable, CustomStringConvertible, CustomReflectable {
    /// The profile's name.
    public let name: String
    let values: [String: SharedConfigFile.Value]

    /// A key's text value (`region`, `role_arn`, …); nil when absent or a nested block.
    public subscript(_ key: String) -> String? { values[key]?.text }

    /// A nested block's keys and values (`s3 =` followed by indented `key = value` lines).
    public func nested(_ key: String) -> [String: String]? {
        if case .nested(let block) = values[key] { return block }
        return nil
    }

    /// Whether the profile sets `key` at all.
    public func has(_ key: String) -> Bool { values[key] != nil }

    /// The name and the keys it sets, never their values (they include secrets).
    public var description: String { "AWSProfile(\(name), keys: \(values.keys.sorted().joined(separator: ", ")))" }
    /// The description only: `dump` and reflection never reach the values.
    public var customMirror: Mirror { Mirror(self, children: ["description": description], displayStyle: .struct) }
}

/// The AWS CLI's shared files, read as botocore reads them: the config file (`AWS_CONFIG_FILE`,
/// default `~/.aws/config`) and the credentials file (`AWS_SHARED_CREDENTIALS_FILE`, default
/// `~/.aws/credentials`).
///
/// In the config file a profile is `[profile NAME]` (the header split into words as a shell would,
/// so `[profile "my name"]` works) or `[default]`; `[services NAME]` sections hold per-service
/// settings; other sections are ignored. Every section of the credentials file is a profile, and its
/// keys override the config file's for the same profile. A missing file counts as empty; a file over
/// ``maximumFileBytes`` or one that does not parse is an error naming it and the line.
public struct AWSSharedConfiguration: Sendable {
    /// The most bytes read from either file.
    public static let maximumFileBytes = 1 << 20

    /// The config file's path (after `~` and `$VAR` expansion).
    public let configFilePath: String
    /// The credentials file's path.
    public let credentialsFilePath: String
    let profiles: [String: AWSProfile]
    /// The config file's profiles alone (botocore's `config-file` source reads only these).
    let configFileProfiles: [String: AWSProfile]
    /// The credentials file's sections alone (the `shared-credentials-file` source).
    let credentialsFileProfiles: [String: AWSProfile]
    let services: [String: [String: SharedConfigFile.Value]]

    /// Reads the files the environment names (or the defaults under `HOME`).
    ///
    /// - Throws: `AuthCoreError.Code.malformedInput` naming the file and line for a file that does not
    ///   parse; `AuthCoreError.Code.inputTooLarge` for a file over ``maximumFileBytes``.
    public init(environment: ConfigurationEnvironment = .process) throws(AuthCoreError) {
        try self.init(
            configFile: environment["AWS_CONFIG_FILE"] ?? "~/.aws/config",
            credentialsFile: environment["AWS_SHARED_CREDENTIALS_FILE"] ?? "~/.aws/credentials",
            environment: environment
        )
    }

    /// Reads these two files (paths expanded as botocore expands them).
    public init(
        configFile: String,
        credentialsFile: String,
        environment: ConfigurationEnvironment = .process
    ) throws(AuthCoreError) {
        configFilePath = environment.expandedPath(configFile)
        credentialsFilePath = environment.expandedPath(credentialsFile)
        var profiles: [String: [String: SharedConfigFile.Value]] = [:]
        var credentialSections: [String: [String: SharedConfigFile.Value]] = [:]
        var services: [String: [String: SharedConfigFile.Value]] = [:]
        if let config = try Self.read(configFilePath) {
            for section in config.sections {
                if section.name.hasPrefix("profile") {
                    if let name = Self.sectionName(section.name, file: config.path, line: section.line) {
                        profiles[name] = section.values
                    }
                } else if section.name.hasPrefix("services") {
                    if let name = Self.sectionName(section.name, file: config.path, line: section.line) {
                        services[name] = section.values
                    }
                } else if section.name == "default" {
                    profiles["default"] = section.values
                }
            }
        }
        let configOnly = profiles
        if let credentials = try Self.read(credentialsFilePath) {
            for section in credentials.sections {
                credentialSections[section.name] = section.values
                profiles[section.name, default: [:]].merge(section.values) { _, new in new }
            }
        }
        func named(_ table: [String: [String: SharedConfigFile.Value]]) -> [String: AWSProfile] {
            table.reduce(into: [:]) { $0[$1.key] = AWSProfile(name: $1.key, values: $1.value) }
        }
        self.profiles = named(profiles)
        self.configFileProfiles = named(configOnly)
        self.credentialsFileProfiles = named(credentialSections)
        self.services = services
    }

    /// The profile named `name`, nil when neither file has it.
    public func profile(named name: String) -> AWSProfile? { profiles[name] }

    /// Every profile's name, sorted.
    public var profileNames: [String] { profiles.keys.sorted() }

    /// A `[services NAME]` section's block for one service (`sts`, `s3`): its nested keys.
    func serviceSettings(_ sectionName: String, service: String) -> [String: String]? {
        if case .nested(let block) = services[sectionName]?[service] { return block }
        return nil
    }

    /// `[profile NAME]` → NAME: the header split as `shlex.split` would, two words or it is not a
    /// profile (botocore skips such sections silently).
    static func sectionName(_ header: String, file: String, line: Int) -> String? {
        guard let words = try? ShellWords.split(header, context: "\(file):\(line)"), words.count == 2 else {
            return nil
        }
        return words[1]
    }

    /// The parsed file at `path`; nil when it does not exist or is not a regular file.
    static func read(_ path: String) throws(AuthCoreError) -> SharedConfigFile? {
        guard !path.hasPrefix("~") else { return nil }  // no home to put it in: never relative to the working directory
        guard let bytes = try BoundedFile.read(path, maximumBytes: maximumFileBytes) else { return nil }
        return try SharedConfigFile(parsing: bytes, path: path)
    }
}

/// Reads small configuration files with a bound, as Python's `open` after `os.path.isfile` would:
/// symlinks followed (dotfile managers link `~/.aws/config`; Kubernetes projects tokens as links),
/// then only a regular file read, opened without blocking (a FIFO swapped in cannot stall the read),
/// at most `maximumBytes`.
enum BoundedFile {
    /// The file's bytes; nil when there is no regular file at `path` or it cannot be opened.
    ///
    /// - Throws: `AuthCoreError.Code.inputTooLarge` over `maximumBytes`.
    static func read(_ path: String, maximumBytes: Int) throws(AuthCoreError) -> [UInt8]? {
        guard !path.isEmpty, !path.utf8.contains(0) else { return nil }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        guard status.st_size >= 0, status.st_size <= maximumBytes else {
            throw AuthCoreError(.inputTooLarge, "\(path) is larger than \(maximumBytes) bytes")
        }
        var bytes = [UInt8](repeating: 0, count: maximumBytes + 1)
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes {
                Glibc.read(descriptor, $0.baseAddress! + total, $0.count - total)
            }  // invariant: count > 0
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            total += count
        }
        guard total <= maximumBytes else {
            throw AuthCoreError(.inputTooLarge, "\(path) grew past \(maximumBytes) bytes while it was read")
        }
        return Array(bytes[..<total])
    }
}

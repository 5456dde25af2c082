import ArgumentParser
import Foundation

/// Every option of every subcommand can also be set from the environment as
/// `BURGERMAP_<NAME>`: `--photo-dir` as `BURGERMAP_PHOTO_DIR`, `--trusted-proxy` as
/// `BURGERMAP_TRUSTED_PROXY`, as twelve-factor services are configured. An option on the
/// command line wins over its variable.
///
/// The names come from the options' own declarations (ArgumentParser's description of the
/// command tree, the JSON that `--experimental-dump-help` prints), so that a new option is
/// declared once, with its help, and is then settable from the environment, listed by
/// `scripts/check-options` and checked against docs/configuration.md with nothing else to add.
///
/// apple/swift-configuration (1.4.0) was evaluated for this: its command-line and environment
/// providers read keys into a `ConfigReader`, but it writes no `--help`, validates no values and
/// brings a second way of declaring each option beside ArgumentParser's, which gives help,
/// completion and validation already; this one function closes the only gap (the environment).
enum EnvironmentOptions {
    /// The prefix of every option's variable.
    static let prefix = "BURGERMAP_"

    /// `arguments` (without the program's name) with an `--option value` added for each option
    /// of the chosen subcommand that is not on the command line and has a non-empty variable.
    /// A flag's variable turns it on with `1`, `true`, `on` or `yes`. A repeatable option's
    /// variable holds its values separated by spaces or newlines.
    static func arguments(_ arguments: [String], environment: [String: String]) -> [String] {
        let given = environment.filter { $0.key.hasPrefix(prefix) && !$0.value.isEmpty }
        guard !given.isEmpty, let root = commandTree() else { return arguments }
        // The subcommand path: the leading words that name subcommands.
        var command = root
        var path = 0
        while path < arguments.count, let next = command.subcommands.first(where: { $0.name == arguments[path] }) {
            command = next
            path += 1
        }
        let written = Set(
            arguments.compactMap { argument -> String? in
                guard argument.hasPrefix("--") else { return nil }
                return String(argument.dropFirst(2).prefix { $0 != "=" })
            })
        var added: [String] = []
        for option in command.options where !written.contains(option.name) {
            guard let value = given[variable(for: option.name)] else { continue }
            if option.isFlag {
                if ["1", "true", "on", "yes"].contains(value.lowercased()) { added.append("--" + option.name) }
            } else if option.isRepeating {
                for part in value.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
                    added += ["--" + option.name, String(part)]
                }
            } else {
                added += ["--" + option.name, value]
            }
        }
        return Array(arguments[..<path]) + added + Array(arguments[path...])
    }

    /// The variable of the option `--name`.
    static func variable(for name: String) -> String {
        prefix + name.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// A subcommand and the long options it declares.
    struct Command {
        var name: String
        var options: [Option]
        var subcommands: [Command]
    }

    /// One declared option.
    struct Option {
        var name: String
        var isFlag: Bool
        var isRepeating: Bool
    }

    /// The command tree as ArgumentParser describes it; `nil` if it cannot be read.
    static func commandTree() -> Command? {
        let description: String
        do {
            _ = try BurgerMapCommand.parseAsRoot(["--experimental-dump-help"])
            return nil
        } catch {
            description = BurgerMapCommand.fullMessage(for: error)
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(description.utf8)) as? [String: Any],
            let command = object["command"] as? [String: Any]
        else { return nil }
        return self.command(command)
    }

    private static func command(_ object: [String: Any]) -> Command {
        let arguments = object["arguments"] as? [[String: Any]] ?? []
        let options = arguments.compactMap { argument -> Option? in
            let kind = argument["kind"] as? String
            guard kind == "option" || kind == "flag" else { return nil }
            let names = argument["names"] as? [[String: Any]] ?? []
            guard
                let long = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String,
                !["help", "version", "experimental-dump-help"].contains(long)
            else { return nil }
            return Option(name: long, isFlag: kind == "flag", isRepeating: argument["isRepeating"] as? Bool ?? false)
        }
        let subcommands = (object["subcommands"] as? [[String: Any]] ?? []).map(command)
        return Command(name: object["commandName"] as? String ?? "", options: options, subcommands: subcommands)
    }
}

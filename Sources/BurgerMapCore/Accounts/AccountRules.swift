/// The rules of the contract for account fields, each check adding a field error.
public enum AccountRules {
    /// The form in which emails and nicknames are compared and kept unique: case-folded. Every
    /// engine stores this key beside the text, computed here, so that all compare alike.
    public static func key(_ text: String) -> String {
        text.lowercased()
    }

    /// An email address: one `@`, a non-empty local part of at most 64 bytes, a domain with a
    /// dot and no empty label, no spaces or control characters, at most 254 bytes in all.
    /// (Deliverability is for a confirmation mail to prove, not for a pattern.)
    package static func checkEmail(_ email: String, into errors: inout [FieldError]) {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        let labels = parts.count == 2 ? parts[1].split(separator: ".", omittingEmptySubsequences: false) : []
        let valid =
            email.utf8.count <= 254 && parts.count == 2 && !parts[0].isEmpty && parts[0].utf8.count <= 64
            && labels.count >= 2 && !labels.contains(where: \.isEmpty)
            && !email.unicodeScalars.contains {
                $0.properties.isWhitespace || $0.properties.generalCategory == .control
            }
        if !valid { errors.append(FieldError(field: "email", code: "invalid", .emailInvalid)) }
    }

    /// A password: 8 to 128 code points, anything else allowed.
    package static func checkPassword(_ password: String, into errors: inout [FieldError]) {
        TextField.password.check(password, into: &errors)
    }

    /// A nickname: 2 to 30 code points, no white space at either end, no control characters.
    package static func checkNickname(_ nickname: String, into errors: inout [FieldError]) {
        if let first = nickname.unicodeScalars.first, let last = nickname.unicodeScalars.last,
            first.properties.isWhitespace || last.properties.isWhitespace
        {
            errors.append(FieldError(field: "nickname", code: "surrounding_space", .nicknameSpaces))
            return
        }
        TextField.nickname.check(nickname, into: &errors)
        checkFormatCharacters(nickname, field: "nickname", into: &errors)
    }

    /// A bio: at most 500 code points; line breaks allowed, other control characters not, nor
    /// invisible format characters.
    package static func checkBio(_ bio: String, into errors: inout [FieldError]) {
        TextField.bio.check(bio, into: &errors)
        checkFormatCharacters(bio, field: "bio", into: &errors)
    }

    /// Refuses invisible format characters (Unicode general category Cf: right-to-left and other
    /// direction overrides, zero-width spaces and joiners, tag characters…), with which one user
    /// could show the name of another (`format_characters`). The one exception is a zero-width
    /// joiner between two emoji, as in 👩‍💻 or ❤️‍🔥, which draws one emoji.
    package static func checkFormatCharacters(_ text: String, field: String, into errors: inout [FieldError]) {
        if hasFormatCharacters(text) {
            errors.append(FieldError(field: field, code: "format_characters", .fieldFormatCharacters))
        }
    }

    /// Whether `text` holds a format character other than a joiner between two emoji.
    package static func hasFormatCharacters(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() where scalar.properties.generalCategory == .format {
            guard scalar == "\u{200D}", index > 0, index + 1 < scalars.count else { return true }
            // Before the joiner an emoji, its skin tone or its emoji presentation selector.
            let before = scalars[index - 1]
            let after = scalars[index + 1]
            let emojiBefore =
                before == "\u{FE0F}" || before.properties.isEmojiModifier
                || (before.properties.isEmoji && !before.isASCII)
            guard emojiBefore, after.properties.isEmoji, !after.isASCII else { return true }
        }
        return false
    }
}

extension AccountRules {
    /// The event of a profile update, when it named a nickname or a bio; `nil` otherwise.
    public static func profileChanged(_ user: Int64, changedAnything: Bool) -> DomainEvent? {
        changedAnything ? DomainEvent(.profileChanged, actor: user, subject: user) : nil
    }

    /// The event of a new avatar (recorded for every replacement).
    public static func avatarChanged(_ user: Int64) -> DomainEvent {
        DomainEvent(.avatarChanged, actor: user, subject: user)
    }

    /// The one event of an account deletion: its reviews, comments, likes and follows go with
    /// it without events of their own (readers forget the user's things by this one).
    public static func deleted(_ user: Int64) -> DomainEvent {
        DomainEvent(.accountDeleted, actor: user, subject: user)
    }
}

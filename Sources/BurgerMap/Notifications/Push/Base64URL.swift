import ExtrasBase64

/// Base64url (RFC 4648 §5), the encoding Web Push uses everywhere: subscription keys, the
/// VAPID public key, the JWT segments. ExtrasBase64 (as `CursorCodec` uses it) does the work;
/// this adds the one leniency Web Push needs: browsers hand out keys without padding, some
/// libraries add it.
public enum Base64URL {
    /// The text of `bytes`, without padding.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Base64.encodeToString(bytes: Array(bytes), options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }

    /// The bytes of `text`, with or without `=` padding; `nil` for any other character, for
    /// padding that is not at the end or not of the right length, or for an impossible length.
    public static func decode(_ text: String) -> [UInt8]? {
        var characters = Array(text.utf8)
        if let firstPad = characters.firstIndex(of: UInt8(ascii: "=")) {
            // Padding, when present, must complete the text to a multiple of 4 and be all `=`.
            guard characters.count % 4 == 0, characters.count - firstPad <= 2,
                characters[firstPad...].allSatisfy({ $0 == UInt8(ascii: "=") })
            else { return nil }
            characters.removeSubrange(firstPad...)
        }
        guard characters.count % 4 != 1 else { return nil }
        return try? Base64.decode(bytes: characters, options: [.base64UrlAlphabet, .omitPaddingCharacter])
    }
}

import BurgerMapCore
import Logging

/// Registering and signing in, with every rule and limit of the contract: the native routes
/// (`AuthController`) and the LookForRealBurger routes (`LSLPAccountsController`) both call
/// these, so the two cannot drift apart.
extension AccountServices {
    /// Creates an account from the fields a client sent, checked by `AccountRules`; throws the
    /// `validation_failed` or `conflict` problem otherwise.
    func register(
        email: String?, password: String?, nickname: String?, store: any AccountStore, logger: Logger
    ) async throws -> User {
        var validator = BodyValidator()
        let email = validator.required(email, "email")
        let password = validator.required(password, "password")
        let nickname = validator.required(nickname, "nickname")
        if let email { validator.check { AccountRules.checkEmail(email, into: &$0) } }
        if let password { validator.check { AccountRules.checkPassword(password, into: &$0) } }
        if let nickname {
            validator.check { AccountRules.checkNickname(nickname, into: &$0) }
            validator.check { blockedWords.check(nickname, field: "nickname", into: &$0) }
        }
        try validator.validate()
        guard let email, let password, let nickname else { throw Problem.validation([]) }
        // Spare the bcrypt when the answer is already known; the unique index still decides races.
        if let conflict = try await store.accountExists(email: email, nickname: nickname) {
            throw Self.problem(for: conflict)
        }
        let hash = try await passwords.hash(password)
        let user: User
        do {
            user = try await store.createUser(email: email, passwordHash: hash, nickname: nickname, at: .now())
        } catch let conflict as AccountConflict {
            throw Self.problem(for: conflict)
        }
        logger.info("account created", metadata: ["user_id": "\(user.id)"])
        return user
    }

    /// The problem of a taken email or nickname.
    static func problem(for conflict: AccountConflict) -> Problem {
        switch conflict {
        case .email: Problem(.conflict, .emailTaken)
        case .nickname: Problem(.conflict, .nicknameTaken)
        }
    }

    /// The account of a correct email and password. A wrong password and an unknown email get
    /// the same answer after the same bcrypt work; repeated failures per (email, client) or per
    /// client answer `429` with `Retry-After` (see `LoginThrottle`).
    func authenticate(
        email: String?, password: String?, store: any AccountStore, client: String, clientText: String,
        logger: Logger
    ) async throws -> User {
        var validator = BodyValidator()
        let email = validator.required(email, "email")
        let password = validator.required(password, "password")
        try validator.validate()
        guard let email, let password else { throw Problem.validation([]) }
        if let wait = try await throttle.retryAfter(email: email, client: client) {
            throw Problem(
                .rateLimited, .tooManyLoginAttempts, ["seconds": "\(wait)"], headers: [.retryAfter: "\(wait)"])
        }
        let stored = password.utf8.count <= 1024 ? try await store.credentials(email: email) : nil
        guard try await passwords.verify(password, against: stored?.passwordHash), let user = stored?.user else {
            let engaged = try await throttle.recordFailure(email: email, client: client)
            logger.info("login failed")
            for block in engaged {
                var metadata: Logger.Metadata = [
                    "limit": "\(block.kind.rawValue)", "client": "\(clientText)",
                    "retry_after": "\(block.retryAfter)", "round": "\(block.round)",
                ]
                if let hash = block.accountHash { metadata["account"] = "\(hash)" }
                logger.notice("login limit engaged", metadata: metadata)
            }
            throw Problem(.invalidCredentials, .invalidCredentials)
        }
        try await throttle.recordSuccess(email: email, client: client)
        if let stored, PasswordHasher.needsUpgrade(stored.passwordHash) {
            // Stored before passwords were pre-hashed: store the new form, unless the password
            // changed meanwhile.
            let upgraded = try await passwords.hash(password)
            _ = try await store.replacePasswordHash(userID: user.id, from: stored.passwordHash, to: upgraded)
        }
        if try await store.authenticatedUser(id: user.id)?.standing.suspendedAt != nil {
            throw Problem(.forbidden, .accountSuspended)
        }
        return user
    }
}

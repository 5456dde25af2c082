import BurgerMapCore
import Hummingbird

extension Router where Context == AppRequestContext {
    /// Adds the LookForRealBurger app's routes under `/v1` (`burgermap serve --lslp-key`): every
    /// one requires `SesacKey` (`420`), takes bare access tokens, answers success with `200` and
    /// errors with the app's statuses and `{message}` (`LSLPErrorMiddleware`). Photos the app is
    /// given are fetched from the native photo route, which needs no key.
    func addLSLPRoutes(
        _ settings: LSLPSettings, dependencies: ServiceDependencies, cursors: CursorCodec, writes: WriteLimiter,
        signedIn: SignedInUsers
    ) {
        let stores = dependencies.stores
        let group = self.group("v1").add(middleware: LSLPErrorMiddleware())
            .add(middleware: LSLPKeyMiddleware(key: settings.key))
        // Their reads stay on the primary (with read replicas too): the app reads its own posts
        // back at once. Their writes still mark the writer for the native routes' reads.
        let authentication = LSLPTokenMiddleware(
            tokens: dependencies.accounts.accessTokens, users: signedIn, writers: dependencies.reads.writers)
        LSLPAccountsController(
            accounts: stores.accounts, social: stores.social, posts: stores.posts, services: dependencies.accounts,
            writes: writes, blocks: stores.blocks, media: dependencies.media
        ).addRoutes(to: group, authentication: authentication)
        LSLPPostsController(
            settings: settings, places: stores.places, reviews: stores.reviews, accounts: stores.accounts,
            social: stores.social,
            posts: stores.posts, photos: stores.photos, media: dependencies.media, cursors: cursors,
            blockedWords: dependencies.accounts.blockedWords, writes: writes, blocks: stores.blocks
        ).addRoutes(to: group.group().add(middleware: authentication).group(context: AuthenticatedContext.self))
    }
}

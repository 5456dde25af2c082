import Synchronization
import Testing

@testable import BurgerMap
@testable import BurgerMapCore

@Suite("What /health answers")
struct HealthAnswerTests {
    /// The engine's real health check, counted.
    final class CountedHealth: StoreHealth {
        let engine: any StoreHealth
        let checks = Mutex(0)

        init(_ engine: any StoreHealth) { self.engine = engine }

        func isReachable() async -> Bool {
            checks.withLock { $0 += 1 }
            return await engine.isReachable()
        }

        var isAvailable: Bool { engine.isAvailable }
        /// Checked on each request, not in the background, whatever the engine.
        var checksInBackground: Bool { false }
        func storageFault(_ error: any Error) -> StorageFault? { engine.storageFault(error) }
        func probeWrite() async -> StorageFault? { await engine.probeWrite() }
    }

    @Test("one database check serves every /health of the next second", arguments: StoreEngine.available)
    func oneCheckPerSecond(engine: StoreEngine) async throws {
        let environment = try await TestEnvironment(engine)
        let counted = CountedHealth(environment.stores.health)
        let start = ContinuousClock.now
        let clock = Mutex(start)
        let answer = HealthAnswer(health: counted, now: { clock.withLock { $0 } })
        #expect(await answer.isHealthy())
        for step in [0, 300, 999] {
            clock.withLock { $0 = start + .milliseconds(step) }
            #expect(await answer.isHealthy())
        }
        #expect(counted.checks.withLock { $0 } == 1)
        clock.withLock { $0 = start + .milliseconds(1000) }
        #expect(await answer.isHealthy())
        #expect(counted.checks.withLock { $0 } == 2)
    }
}

import FootstepStore
import Logging

extension FootstepDaemonService {
    /// Sends `command` to the service task and waits for its reply: what the
    /// daemon did, once it is done (a start replies when the session has
    /// started, a stop when it has ended). `.timedOut` when no reply comes
    /// `within` the time given.
    public func send(_ command: DaemonCommand, within timeout: Duration = .seconds(5)) async -> DaemonCommand.Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<DaemonCommand.Outcome, Never>) in
            guard let ticket = control.withLock({ $0.mailbox.post(command, replyTo: continuation) }) else {
                continuation.resume(returning: .shuttingDown)
                return
            }
            wakeup.signal()
            let timer = Task {
                try? await Task.sleep(for: timeout)
                if !Task.isCancelled { reply(ticket, .timedOut) }
            }
            if !control.withLock({ $0.mailbox.setTimer(timer, for: ticket) }) { timer.cancel() }
        }
    }

    /// Answers the caller of `ticket`, unless it was answered already.
    func reply(_ ticket: CommandMailbox.Ticket, _ outcome: DaemonCommand.Outcome) {
        control.withLock { $0.mailbox.answer(ticket) }?.resume(returning: outcome)
    }

    /// The commands sent since the last call, in order.
    func takeCommands() -> [(ticket: CommandMailbox.Ticket, command: DaemonCommand)] {
        control.withLock { $0.mailbox.take() }
    }

    /// Answers every caller still waiting with `.shuttingDown` (a write with
    /// ``DaemonError``) and refuses new commands and writes.
    func closeMailbox() {
        let (replies, writes) = control.withLock { $0.mailbox.close() }
        for waiter in replies { waiter.resume(returning: .shuttingDown) }
        for write in writes { write(nil) }
    }

    /// Runs `body` on the service task, the store's one writer, between its
    /// other work (an event being stored, a level batch), and returns its
    /// result or rethrows its error (a `StoreError`).
    /// - Throws: ``DaemonError`` when the daemon is shutting down.
    public func write<Result: Sendable>(
        _ body: @escaping @Sendable (FootstepDatabase) throws -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            let posted = control.withLock { control in
                control.mailbox.post { database in
                    guard let database else {
                        continuation.resume(throwing: DaemonError.shuttingDown)
                        return
                    }
                    continuation.resume(with: Swift.Result { try body(database) })
                }
            }
            guard posted else {
                continuation.resume(throwing: DaemonError.shuttingDown)
                return
            }
            wakeup.signal()
        }
    }

    /// Runs the writes sent since the last call (on the service task).
    func runWrites(_ database: FootstepDatabase) {
        for write in control.withLock({ $0.mailbox.takeWrites() }) { write(database) }
    }

    /// Makes `offsetDB` the calibration in force (it wins over the configuration file's).
    func setCalibration(_ offsetDB: Double) {
        control.withLock { $0.storedCalibrationOffset = offsetDB }
        logger.notice("calibration offset \(offsetDB) dB applied; a new session starts with it")
    }

    /// The state machine (a copy): what the commands want.
    var machine: DaemonStateMachine { control.withLock { $0.status.machine } }

    /// The state machine's decision on `command`.
    func decide(_ command: DaemonCommand, in situation: DaemonStateMachine.Situation) -> DaemonStateMachine.CommandAction {
        var action = DaemonStateMachine.CommandAction.reply(.shuttingDown)
        update { action = $0.command(command, in: situation) }
        return action
    }

    /// Carries out the commands that arrive while no session is open, as the state machine decides.
    /// - Parameters:
    ///   - scheduleOpen: Whether the monitoring schedule wants a session now.
    ///   - deviceError: Why the device cannot be opened, while a session waits for it.
    func handleBetweenSessions(
        _ commands: [(ticket: CommandMailbox.Ticket, command: DaemonCommand)], callers: inout WaitingCallers,
        scheduleOpen: Bool, deviceError: String? = nil
    ) {
        let situation = DaemonStateMachine.Situation(
            scheduleClosed: scheduleOpen ? nil : status.schedule.description, deviceError: deviceError)
        for (ticket, command) in commands {
            switch decide(command, in: situation) {
            case let .reply(outcome):
                reply(ticket, outcome)
            case .awaitStart:
                callers.awaitingStart.append((ticket, command))
            case let .calibrate(offsetDB, _):
                setCalibration(offsetDB)
                reply(ticket, .calibrated(session: nil))
            case .endSession, .setPaused:
                // Only with a session open (the machine's situation has none).
                reply(ticket, .refused("no session is open"))
            }
        }
    }
}

/// The callers waiting for a session to start or end. Owned by the service task.
struct WaitingCallers {
    /// `start` and `calibrate` commands answered when the next session starts.
    var awaitingStart: [(ticket: CommandMailbox.Ticket, command: DaemonCommand)] = []
    /// `stop` commands answered when the open session ends.
    var awaitingEnd: [CommandMailbox.Ticket] = []
}

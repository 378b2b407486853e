/**
 * Preloaded (`--import`) into the `gatehouse serve` processes the bench spawns with an IPC
 * channel: the CLI knows nothing of the bench, so when the channel closes (the bench exited or
 * was killed) this sends the process SIGTERM, and the CLI shuts down as it does for an operator.
 * The channel does not keep the process alive: it ends when the CLI is done.
 */
process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
process.channel?.unref();

// Preloaded (`node --import`) into the toolrun processes tests start: when the test process that
// started one is gone (crashed, killed, its output pipe closed), the process shuts down too, so
// no worker outlives its test run and goes on acting on a test database.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.kill(process.pid, 'SIGTERM');
}, 1000).unref();

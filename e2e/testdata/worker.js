// A dedicated worker: a "worker" target the provider must not report.
setInterval(() => {}, 100000);

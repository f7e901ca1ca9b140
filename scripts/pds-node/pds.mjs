// The reference ATProto PDS and, unless KNOTLESS_PLC_URL names one already running, a PLC
// directory with an in-memory database, in this one Node process, for the integration tests.
// Started by scripts/pds (which sets the PDS_* variables); docs/guide/testing.md.
//
// Everything listens on 127.0.0.1 only: both servers call listen(port) with no host, which
// would bind every interface, so listen is given the loopback host when a caller gives none.
import net from 'node:net'

const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (...args) {
  const first = args[0]
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (args.length === 1 || typeof args[1] === 'function') args.splice(1, 0, '127.0.0.1')
  } else if (first && typeof first === 'object' && first.path === undefined && first.host === undefined) {
    args[0] = { ...first, host: '127.0.0.1' }
  }
  return listen.apply(this, args)
}

const t0 = Date.now()
const { PDS, envToCfg, envToSecrets, readEnv } = await import('@atproto/pds')

let plc
if (!process.env.KNOTLESS_PLC_URL) {
  const { default: plcServer } = await import('@did-plc/server')
  const port = Number(process.env.KNOTLESS_PLC_PORT)
  plc = plcServer.PlcServer.create({ db: plcServer.Database.mock(), port })
  await plc.start()
  process.env.PDS_DID_PLC_URL = `http://127.0.0.1:${port}`
} else {
  process.env.PDS_DID_PLC_URL = process.env.KNOTLESS_PLC_URL
}

const env = readEnv()
const pds = await PDS.create(envToCfg(env), envToSecrets(env))
await pds.start()
console.log(`ready in ${Date.now() - t0} ms: PDS on 127.0.0.1:${env.port}, PLC ${process.env.PDS_DID_PLC_URL}` +
  (plc ? ' (in this process)' : ''))

let stopping = false
const stop = async (signal) => {
  if (stopping) return
  stopping = true
  console.log(`${signal}: stopping`)
  try {
    await pds.destroy()
    if (plc) await plc.destroy()
  } finally {
    process.exit(0)
  }
}
process.on('SIGTERM', () => stop('SIGTERM'))
process.on('SIGINT', () => stop('SIGINT'))

// The target a run's options ask for: a URL, an image, a local reference process, or the reference
// (its image, else a local process).
import path from 'node:path';
import type { RunOptions } from './config.js';
import { ImageTarget } from '../targets/image.js';
import { LocalProcessTarget } from '../targets/local-process.js';
import { ReferenceTarget } from '../targets/reference.js';
import type { TargetPhase } from '../model/events.js';
import type { Target } from '../targets/target.js';
import { UrlTarget } from '../targets/url.js';

export function targetFor(
  o: RunOptions,
  reportDir: string,
  log: (s: string) => void,
  phase?: (phase: TargetPhase) => void,
): Target {
  const stateUrl = o.fixtures ? null : o.providerStatesUrl;
  const image = {
    containerPort: o.containerPort,
    env: o.containerEnv,
    healthPath: o.healthPath,
    startTimeoutMs: o.startTimeoutMs,
    stateUrl,
    log,
    ...(phase ? { phase } : {}),
  };
  switch (o.target.kind) {
    case 'url':
      return new UrlTarget({
        baseUrl: o.target.baseUrl,
        stateUrl,
        log,
        ...(o.healthPathGiven ? { healthPath: o.healthPath, startTimeoutMs: o.startTimeoutMs } : {}),
      });
    case 'image':
      return new ImageTarget({ image: o.target.image, ...image });
    case 'local-process':
      return new LocalProcessTarget({
        healthPath: o.healthPath,
        startTimeoutMs: o.startTimeoutMs,
        logFile: path.join(reportDir, 'reference-server.log'),
        log,
      });
    case 'reference':
      return new ReferenceTarget({
        requireContainer: o.requireContainer,
        image,
        local: {
          healthPath: o.healthPath,
          startTimeoutMs: o.startTimeoutMs,
          logFile: path.join(reportDir, 'reference-server.log'),
          log,
        },
        log,
        ...(phase ? { phase } : {}),
      });
  }
}

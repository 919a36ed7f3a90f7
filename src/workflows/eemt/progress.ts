/**
 * Progress of the `eemt` workflow: each phase owns a slice of 0–1 proportional to its expected share of
 * the run time, and reports its own progress 0–1 inside that slice. The overall fraction never
 * decreases, whatever the phases report.
 */
import type { EemtPhases, ProgressListener } from '../types.js';

/** The phases of an eemt run, in order. */
export const EEMT_PHASES = ['inputs', 'climate', 'solar', 'unshaded', 'realsky', 'terrain', 'energy', 'readme'] as const;
export type EemtPhase = (typeof EEMT_PHASES)[number];

/** Prefix of every progress message of a phase. */
export const EEMT_PHASE_LABELS: Readonly<Record<EemtPhase, string>> = {
  inputs: 'checking inputs',
  climate: 'climate download',
  solar: 'solar radiation',
  unshaded: 'radiation without terrain shadows',
  realsky: 'real-sky radiation',
  terrain: 'terrain indices',
  energy: 'EEMT',
  readme: 'README',
};

/**
 * Relative weights of the phases for `yearCount` climate years (`assemblingSlices`: an after-solar run that
 * assembles the solar year from tile slices first). The solar year (computed once, whatever
 * the number of years) dominates; the climate download and the monthly EEMT maps grow with the years.
 * Measured on a 60×60 cell crop of mcn_10m with 2 threads: solar ≈ 90 %, one year of EEMT maps ≈ 5 %,
 * terrain ≈ 1 %, a cached climate read ≈ 1 % (a real download takes longer: ~1 s per point). The monthly sums
 * without terrain shadows (`topo_radiation=unshaded`) skip the horizons: ≈ 3 % (0 when not asked for: the phase
 * then reports nothing and is passed over). The real-sky maps read four monthly sums and the observed radiation of
 * every year per month: ≈ 1 %.
 */
export function eemtPhaseWeights(yearCount: number, phases: EemtPhases = 'all', assemblingSlices = false): Readonly<Record<EemtPhase, number>> {
  const years = Math.max(1, yearCount);
  // A run of the solar phase alone spends its time there (its inputs check is quick); a run after it has no solar
  // phase, or only the assembly of the solar year's files from tile slices (measured ≈ 10 % of the solar phase).
  if (phases === 'solar') return { inputs: 0.005, climate: 0, solar: 0.85, unshaded: 0, realsky: 0, terrain: 0, energy: 0, readme: 0 };
  const all = {
    inputs: 0.005,
    climate: 0.03 + 0.005 * years,
    solar: 0.85,
    unshaded: 0.03,
    realsky: 0.005 + 0.002 * years,
    terrain: 0.02,
    energy: 0.05 * years,
    readme: 0.002,
  };
  return phases === 'after-solar' ? { ...all, solar: assemblingSlices ? 0.085 : 0 } : all;
}

/** Share of the solar phase in a whole eemt run of `yearCount` years (what the solar parts of a split job weigh). */
export function eemtSolarShare(yearCount: number): number {
  const weights = eemtPhaseWeights(yearCount);
  return weights.solar / EEMT_PHASES.reduce((sum, phase) => sum + weights[phase], 0);
}

/** Reports progress 0–1 inside the current phase, with a message. */
export type PhaseReporter = (fractionOfPhase: number, message: string) => void;

/** Maps phase progress onto the whole run and keeps the reported fraction monotonic. */
export class EemtProgress {
  private readonly start: Record<EemtPhase, number>;
  private readonly share: Record<EemtPhase, number>;
  private last = 0;

  constructor(
    private readonly listener: ProgressListener | undefined,
    weights: Readonly<Record<EemtPhase, number>>,
  ) {
    const total = EEMT_PHASES.reduce((sum, phase) => sum + weights[phase], 0);
    this.start = {} as Record<EemtPhase, number>;
    this.share = {} as Record<EemtPhase, number>;
    let at = 0;
    for (const phase of EEMT_PHASES) {
      this.start[phase] = at;
      this.share[phase] = weights[phase] / total;
      at += this.share[phase];
    }
  }

  /** A reporter for `phase`; its messages are prefixed with the phase label. */
  phase(phase: EemtPhase): PhaseReporter {
    const label = EEMT_PHASE_LABELS[phase];
    return (fractionOfPhase, message) => {
      const inside = Math.min(1, Math.max(0, Number.isFinite(fractionOfPhase) ? fractionOfPhase : 0));
      this.emit(this.start[phase] + this.share[phase] * inside, `${label}: ${message}`);
    };
  }

  /** The final report: fraction 1. */
  done(message: string): void {
    this.emit(1, message);
  }

  private emit(fraction: number, message: string): void {
    this.last = Math.min(1, Math.max(this.last, fraction));
    this.listener?.({ fraction: this.last, message });
  }
}

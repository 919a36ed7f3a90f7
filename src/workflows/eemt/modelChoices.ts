/**
 * How an eemt run records its model: the choices (pet_method, topo_npp, topo_radiation, lieth_npp_gate) and the
 * Penman settings, each with its source, as lines of README.txt, GDAL metadata items of every GeoTIFF the EEMT
 * phase writes, and namespaced STAC properties. One table of citations serves all three.
 *
 * @see docs/eemt-model.md §0.1c (the choices, their defaults and why)
 */
import type { EemtOptions, LiethNppGate, PetMethod, TopoNppModel, TopoRadiation } from '../../science/eemt/constants.js';
import type { WorkflowParams } from '../types.js';

/** What each PET method computes and where it comes from. */
export const PET_METHOD_SOURCES: Readonly<Record<PetMethod, string>> = {
  thornthwaite:
    'Thornthwaite (1948, Geogr. Rev. 38:55-94): 16 (10 T/I)^a mm per 30 days of 12 h x (D/12)(n/30), heat index I of the year, ' +
    '-415.85 + 32.24 T - 0.43 T^2 from 26.5 C (Willmott et al. 1985); as in Rasmussen et al. 2005, 2011, Rasmussen & Gallo 2013, Zapata-Rios et al. 2016',
  hamon:
    'Hamon (1961) in the form of Haith & Shoemaker (1987, Water Resour. Bull. 23:471-478): 0.021 H^2 e_s[mb]/(T + 273) cm/day x days; ' +
    'the form Rasmussen et al. 2015 (Vadose Zone J.) cite',
  'hamon-linear': 'Hamon, linear form 29.8 D e_s[kPa]/(T + 273.2) mm/day x days (Lu et al. 2005)',
  'hamon-linear-saturation-average': 'Hamon, linear form with e_s = mean of e_s(Tmax), e_s(Tmin), each 0 below 0 C (reemt.sh; comparisons only)',
};

/** What each EEMT-TOPO NPP model computes and where it comes from. */
export const TOPO_NPP_SOURCES: Readonly<Record<TopoNppModel, string>> = {
  regression: 'max(0.39 z + 346 n - 187, 100) g m-2 yr-1 x days/365, Rasmussen et al. 2015 (Vadose Zone J.) Eq. 11 (Santa Catalina Mountains)',
  lieth: "Lieth (1975) Miami temperature model 3000/(1 + exp(1.315 - 0.119 T)) g m-2 yr-1 x days/365 on the month's topographic mean temperature",
};

/** Where S_topo of EEMT-TOPO's solar ratio comes from. */
export const TOPO_RADIATION_SOURCES: Readonly<Record<TopoRadiation, string>> = {
  unshaded:
    'S_topo = clear-sky global radiation on the sloped surface WITHOUT terrain shadows (global/monthly_unshaded/), ' +
    'as the ArcGIS radiation of Rasmussen et al. 2015 (p. 5: no topographic shielding and shadowing)',
  shaded: 'S_topo = clear-sky global radiation on the sloped surface with terrain shadows (global/monthly/, the sol product)',
  realsky:
    "S_topo = real-sky global radiation on the sloped surface with terrain shadows, S_flat = real-sky radiation of a horizontal surface " +
    "(global/monthly_realsky/): the engine's clear-sky beam and diffuse scaled by the climate's observed radiation split with " +
    'Erbs et al. (1982), as the real-sky coefficients of r.sun (Hofierka & Suri 2002)',
};

/** Which months Lieth's NPP counts in. */
export const LIETH_NPP_GATE_SOURCES: Readonly<Record<LiethNppGate, string>> = {
  temperature: "Lieth NPP only in months with T > 0 C (Zapata-Rios et al. 2016, Sect. 5.4: the climate model counts energy only when T > 0)",
  none: 'Lieth NPP in every month (EEMT-Trad: every month with PPT > PET, as Rasmussen et al. 2005 and Zapata-Rios et al. 2016 Eq. 6 state it)',
};

/** Source of the Penman settings of EEMT-TOPO (named constants in science/eemt/constants.ts). */
export const PENMAN_SETTINGS_SOURCE =
  'albedo: FAO-56 reference surface (Allen et al. 1998, Eq. 38); wind u2: FAO-56 default where no wind data exist (Daymet has none); ' +
  'open-water r_a with z0 = 0.00137 m (Thom & Oliver 1977)';

/** The lines of README.txt that name the model choices and their sources. */
export function modelChoiceLines(o: EemtOptions): string[] {
  return [
    `pet_method = ${o.petMethod}: ${PET_METHOD_SOURCES[o.petMethod]}`,
    `topo_npp = ${o.topoNppModel}: ${TOPO_NPP_SOURCES[o.topoNppModel]}`,
    `topo_radiation = ${o.topoRadiation}: ${TOPO_RADIATION_SOURCES[o.topoRadiation]}`,
    `lieth_npp_gate = ${o.liethNppGate}: ${LIETH_NPP_GATE_SOURCES[o.liethNppGate]}`,
    `Penman (EEMT-Topo): albedo ${o.albedo}, wind u2 ${o.windSpeedMPerS} m/s (${PENMAN_SETTINGS_SOURCE})`,
  ];
}

/** GDAL metadata items naming the model of the run, written into every GeoTIFF of the EEMT phase. */
export function modelMetadata(o: EemtOptions): Record<string, string> {
  return {
    EEMT_PET_METHOD: o.petMethod,
    EEMT_PET_METHOD_SOURCE: PET_METHOD_SOURCES[o.petMethod],
    EEMT_TOPO_NPP: o.topoNppModel,
    EEMT_TOPO_NPP_SOURCE: TOPO_NPP_SOURCES[o.topoNppModel],
    EEMT_TOPO_RADIATION: o.topoRadiation,
    EEMT_TOPO_RADIATION_SOURCE: TOPO_RADIATION_SOURCES[o.topoRadiation],
    EEMT_LIETH_NPP_GATE: o.liethNppGate,
    EEMT_LIETH_NPP_GATE_SOURCE: LIETH_NPP_GATE_SOURCES[o.liethNppGate],
    EEMT_PENMAN_ALBEDO: String(o.albedo),
    EEMT_PENMAN_WIND_M_PER_S: String(o.windSpeedMPerS),
    EEMT_PENMAN_SOURCE: PENMAN_SETTINGS_SOURCE,
  };
}

/**
 * STAC properties naming the model of an eemt job (`eemt:pet_method` and `eemt:pet_method_source`, …), from the
 * job's parameters. Jobs recorded before the choices existed carry none and get none (they ran the first defaults).
 */
export function modelChoiceProperties(params: Pick<WorkflowParams, 'pet_method' | 'topo_npp' | 'topo_radiation' | 'lieth_npp_gate'>): Record<string, string> {
  const out: Record<string, string> = {};
  if (params.pet_method) Object.assign(out, { 'eemt:pet_method': params.pet_method, 'eemt:pet_method_source': PET_METHOD_SOURCES[params.pet_method] });
  if (params.topo_npp) Object.assign(out, { 'eemt:topo_npp': params.topo_npp, 'eemt:topo_npp_source': TOPO_NPP_SOURCES[params.topo_npp] });
  if (params.topo_radiation) {
    Object.assign(out, { 'eemt:topo_radiation': params.topo_radiation, 'eemt:topo_radiation_source': TOPO_RADIATION_SOURCES[params.topo_radiation] });
  }
  if (params.lieth_npp_gate) {
    Object.assign(out, { 'eemt:lieth_npp_gate': params.lieth_npp_gate, 'eemt:lieth_npp_gate_source': LIETH_NPP_GATE_SOURCES[params.lieth_npp_gate] });
  }
  return out;
}

/** How the real-sky maps are made, with the sources (README.txt and the STAC Item of a job that has them). */
export const REAL_SKY_METHOD =
  "observed horizontal global irradiation split into beam and diffuse with Erbs, Klein & Duffie (1982, Solar Energy 28:293-302); " +
  "real-sky coefficients c_b, c_d over the engine's clear-sky horizontal beam and diffuse scale the clear-sky beam and diffuse parts " +
  'of the sloped, shaded surface, as the coefficients of r.sun (Hofierka & Suri 2002); docs/eemt-model.md §8';

/** The STAC property of a job whose outputs include the real-sky maps (`realSky`), none otherwise. */
export function realSkyProperties(realSky: boolean): Record<string, string> {
  return realSky ? { 'eemt:realsky_radiation': REAL_SKY_METHOD } : {};
}

// Perspective projection of the Stereo Go cylinder (the source's 基础结构图) for the 3-D view.
// Pure math, no DOM: where each of the 359 points lands on the screen, how far it is from the
// eye, and whether its face of the cylinder looks at the viewer (only those can be clicked).
//
// Model: the cylinder's axis is the x axis, NP at the left end, SP at the right; meridian m
// lies at angle phi = 2*pi*(m - roll - CENTRE)/17 round it, phi = 0 facing the viewer and
// growing upwards, so with roll = shift the meridian the 2-D record view draws at position k
// (column k upright, row k from the bottom lying down) sits at angle 2*pi*(k - CENTRE)/17:
// position CENTRE (the ninth) in front, the next positions above it. Each pole is the tip of a
// shallow cone closing its end. ``yaw`` swings the ends towards or away from the viewer (a
// positive yaw brings NP's end forward, so its cap and pole face the viewer).

export const MERIDIAN_COUNT = 17;
export const RING_COUNT = 21;
export const CENTRE = 8; // the position drawn in front (0-based)
const GAP = (2 * Math.PI) / MERIDIAN_COUNT; // ring spacing = meridian spacing on the surface
const CAP = 0.55; // how far each pole stands beyond its end ring (the cylinder's radius is 1)
const EYE = 12; // the eye's distance from the axis: a mild perspective
const FACING_MIN = 0.12; // cosine between a point's normal and the eye's ray to count as front

/** The angle of meridian ``m`` (0 = A) when the cylinder is turned by ``roll`` meridians. */
export function meridianAngle(m, roll) {
  return GAP * (m - roll - CENTRE);
}

/** Where the cylinder's points stand before projection: {x, y, z, normal} in model space. */
function modelPoint(name, roll) {
  if (name === 'NP' || name === 'SP') {
    const sign = name === 'NP' ? -1 : 1;
    return { x: sign * (GAP * (RING_COUNT - 1) / 2 + CAP), y: 0, z: 0, normal: [sign, 0, 0] };
  }
  const m = name.charCodeAt(0) - 65;
  const ring = Number(name.slice(1));
  const phi = meridianAngle(m, roll);
  const x = GAP * (ring - 1 - (RING_COUNT - 1) / 2);
  return { x, y: Math.sin(phi), z: Math.cos(phi), normal: [0, Math.sin(phi), Math.cos(phi)] };
}

/** Turn a model-space vector about the screen's vertical axis by ``yaw``. */
function swing([x, y, z], yaw) {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  return [x * c + z * s, y, z * c - x * s];
}

/**
 * Project one point (``A1`` … ``Q21``, ``NP``, ``SP``): {x, y} on a unit screen (y down, the
 * axis horizontal), ``depth`` (larger is nearer), ``scale`` (the perspective factor) and
 * ``facing`` (the cosine between the surface's normal and the ray to the eye).
 */
export function project(name, { roll, yaw }) {
  const p = modelPoint(name, roll);
  const [x, y, z] = swing([p.x, p.y, p.z], yaw);
  const n = swing(p.normal, yaw);
  const scale = EYE / (EYE - z);
  const ray = [-x, -y, EYE - z];
  const length = Math.hypot(...ray);
  const facing = (n[0] * ray[0] + n[1] * ray[1] + n[2] * ray[2]) / length;
  return { x: x * scale, y: -y * scale, depth: z, scale, facing };
}

/** Whether a projected point faces the viewer enough to be seen and clicked. */
export function isFront(projected) {
  return projected.facing > FACING_MIN;
}

/** The screen distance between neighbouring meridians in front, in unit-screen lengths. */
export function frontSpacing() {
  return GAP * (EYE / (EYE - 1));
}

/** Every point name of the cylinder, NP first and SP last (as the state's rows). */
export function pointNames() {
  const names = ['NP'];
  for (let ring = 1; ring <= RING_COUNT; ring += 1) {
    for (let m = 0; m < MERIDIAN_COUNT; m += 1) names.push(`${String.fromCharCode(65 + m)}${ring}`);
  }
  names.push('SP');
  return names;
}

/**
 * A vertical axis people read without arithmetic: it starts at zero, ends at a round number at
 * or above the largest value, and is marked at 1, 2 or 5 × a power of ten (Heckbert's "nice
 * numbers"), about five marks in all.
 */
export function niceStep(roughStep: number): number {
  const power = 10 ** Math.floor(Math.log10(roughStep));
  const fraction = roughStep / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10;
  return nice * power;
}

export function niceScale(largest: number, marks = 5): { max: number; ticks: number[] } {
  if (!(largest > 0)) return { max: 1, ticks: [0, 1] };
  const step = Math.max(1, niceStep(largest / marks));
  const max = Math.ceil(largest / step) * step;
  const ticks: number[] = [];
  for (let t = 0; t <= max; t += step) ticks.push(t);
  return { max, ticks };
}

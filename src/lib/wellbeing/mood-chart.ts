import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import { moodOf } from './checkins.ts';

/**
 * The mood chart of /insights: an SVG drawn here and rendered to PNG on the server by resvg (prebuilt per platform,
 * no system packages), with the DejaVu Sans font shipped as a dependency, so the text looks the same on any machine
 * and nothing is downloaded at run time. Mood (the check-in's direction times its intensity, -5 to +5) is the line;
 * intensity (1 to 5) the bars under it. Times are UTC.
 */

export const CHART_WIDTH = 800;
export const CHART_HEIGHT = 400;

const FONT = createRequire(import.meta.url).resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');

export interface ChartPoint {
	at: Date;
	mood: string;
	intensity: number;
}

const PAD = { left: 56, right: 20, top: 44, bottom: 44 };
const COLORS = {
	background: '#ffffff',
	grid: '#e5e7eb',
	axis: '#6b7280',
	line: '#5865f2',
	bar: '#c7d2fe',
	pleasant: '#16a34a',
	neutral: '#9ca3af',
	hard: '#dc2626',
};

const esc = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const fixed = (n: number) => n.toFixed(1);

/** The chart as SVG text (pure; `points` oldest first, within [from, to]). */
export function moodChartSvg(points: readonly ChartPoint[], range: { from: Date; to: Date }, title: string): string {
	const w = CHART_WIDTH - PAD.left - PAD.right;
	const h = CHART_HEIGHT - PAD.top - PAD.bottom;
	const span = Math.max(1, range.to.getTime() - range.from.getTime());
	const x = (at: Date) => PAD.left + ((at.getTime() - range.from.getTime()) / span) * w;
	const y = (score: number) => PAD.top + ((5 - score) / 10) * h;
	const parts: string[] = [
		`<svg xmlns="http://www.w3.org/2000/svg" width="${CHART_WIDTH}" height="${CHART_HEIGHT}" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" font-family="DejaVu Sans">`,
		`<rect width="100%" height="100%" fill="${COLORS.background}"/>`,
		`<text x="${PAD.left}" y="26" font-size="16" fill="#111827">${esc(title)}</text>`,
	];
	for (const score of [-5, -2.5, 0, 2.5, 5]) {
		parts.push(
			`<line x1="${PAD.left}" x2="${PAD.left + w}" y1="${fixed(y(score))}" y2="${fixed(y(score))}" stroke="${score === 0 ? COLORS.axis : COLORS.grid}" stroke-width="1"/>`,
		);
	}
	parts.push(
		`<text x="${PAD.left - 8}" y="${fixed(y(5) + 4)}" font-size="11" fill="${COLORS.axis}" text-anchor="end">better</text>`,
		`<text x="${PAD.left - 8}" y="${fixed(y(0) + 4)}" font-size="11" fill="${COLORS.axis}" text-anchor="end">okay</text>`,
		`<text x="${PAD.left - 8}" y="${fixed(y(-5) + 4)}" font-size="11" fill="${COLORS.axis}" text-anchor="end">harder</text>`,
	);
	// Date labels: five, evenly spaced.
	for (let i = 0; i <= 4; i++) {
		const at = new Date(range.from.getTime() + (span * i) / 4);
		// The first and last labels sit inside the plot's edges.
		const label = at.toLocaleDateString('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
		parts.push(
			`<text x="${fixed(x(at))}" y="${CHART_HEIGHT - 18}" font-size="11" fill="${COLORS.axis}" text-anchor="${i === 0 ? 'start' : i === 4 ? 'end' : 'middle'}">${esc(label)}</text>`,
		);
	}
	// Intensity bars, from the bottom, a fifth of the height at most.
	const barWidth = Math.max(2, Math.min(14, w / Math.max(1, points.length) / 2));
	for (const point of points) {
		const barHeight = (point.intensity / 5) * (h / 5);
		parts.push(
			`<rect x="${fixed(x(point.at) - barWidth / 2)}" y="${fixed(PAD.top + h - barHeight)}" width="${fixed(barWidth)}" height="${fixed(barHeight)}" fill="${COLORS.bar}"/>`,
		);
	}
	const scored = points.map((point) => ({ point, score: moodOf(point.mood).valence * point.intensity }));
	if (scored.length > 1) {
		const path = scored.map(({ point, score }, i) => `${i ? 'L' : 'M'}${fixed(x(point.at))},${fixed(y(score))}`).join(' ');
		parts.push(`<path d="${path}" fill="none" stroke="${COLORS.line}" stroke-width="2.5" stroke-linejoin="round"/>`);
	}
	for (const { point, score } of scored) {
		const valence = moodOf(point.mood).valence;
		const fill = valence > 0 ? COLORS.pleasant : valence < 0 ? COLORS.hard : COLORS.neutral;
		parts.push(`<circle cx="${fixed(x(point.at))}" cy="${fixed(y(score))}" r="5" fill="${fill}" stroke="#ffffff" stroke-width="1.5"/>`);
	}
	parts.push(
		`<text x="${PAD.left + w}" y="26" font-size="11" fill="${COLORS.axis}" text-anchor="end">line: mood · bars: intensity (1-5)</text>`,
		'</svg>',
	);
	return parts.join('');
}

/** The chart as a PNG of CHART_WIDTH x CHART_HEIGHT. */
export function renderMoodChart(points: readonly ChartPoint[], range: { from: Date; to: Date }, title: string): Buffer {
	const svg = moodChartSvg(points, range, title);
	const resvg = new Resvg(svg, {
		fitTo: { mode: 'original' },
		font: { loadSystemFonts: false, fontFiles: [FONT], defaultFontFamily: 'DejaVu Sans' },
	});
	return resvg.render().asPng();
}

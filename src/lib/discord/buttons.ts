import { ComponentType, type APIButtonComponentWithCustomId, type ButtonStyle } from 'discord.js';

type ActionStyle = ButtonStyle.Primary | ButtonStyle.Secondary | ButtonStyle.Success | ButtonStyle.Danger;

/** A button that sends an interaction back to Haven (not a link button). */
export function button(label: string, customId: string, style: ActionStyle, disabled = false): APIButtonComponentWithCustomId {
	return { type: ComponentType.Button, style, label, custom_id: customId, disabled };
}

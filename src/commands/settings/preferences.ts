import type { Command } from '@sapphire/framework';
import { ApplicationCommandOptionType } from 'discord.js';
import { countryChoices } from '../../lib/crisis/resources.ts';
import { HavenCommand } from '../../lib/discord/command.ts';
import type { CommandDefinition } from '../../lib/discord/definitions.ts';
import { respondSoon } from '../../lib/discord/reply.ts';
import { renderPreferences } from '../../lib/settings/views.ts';
import { getUserSettings, updateUserSettings, type UserSettingsPatch } from '../../lib/settings/user-settings.ts';

/** Choosing this clears the person's own country: the server's is used again. */
const SERVER_DEFAULT = 'server';

export const definition: CommandDefinition = {
	name: 'preferences',
	description: 'Your own Haven settings: country for crisis lines, crisis screening of your messages',
	category: 'Settings',
	access: 'everyone',
	help: 'Without options it shows your current preferences.',
	options: [
		{
			type: ApplicationCommandOptionType.String,
			name: 'country',
			description: 'Whose crisis lines Haven shows you',
			required: false,
			choices: [{ name: "Same as the server's", value: SERVER_DEFAULT }, ...countryChoices()],
		},
		{
			type: ApplicationCommandOptionType.Boolean,
			name: 'screening',
			description: 'Check your DMs and mentions to Haven for signs of crisis (on by default; /crisis always works)',
			required: false,
		},
	],
};

export class PreferencesCommand extends HavenCommand {
	constructor(context: Command.LoaderContext) {
		super(context, definition);
	}

	override async chatInputRun(interaction: Command.ChatInputCommandInteraction) {
		const country = interaction.options.getString('country');
		const screening = interaction.options.getBoolean('screening');
		await respondSoon(interaction, async () => {
			if (country === null && screening === null) return renderPreferences(await getUserSettings(this.em(), interaction.user.id));
			const patch: UserSettingsPatch = {};
			if (country !== null) patch.country = country === SERVER_DEFAULT ? null : country;
			if (screening !== null) patch.screeningOptOut = !screening;
			const settings = await updateUserSettings(this.em(), interaction.user.id, patch);
			return renderPreferences(settings, ['Saved.']);
		});
	}
}

import { ENGLISH_LOGOUT_MESSAGES, type LogoutMessages } from '@gatehouse-oidc/core';

/** Languages the built-in pages are written in; the first is the default. */
export const LOCALES = ['en', 'fr'] as const;
export type Locale = (typeof LOCALES)[number];

export interface Messages {
  loginTitle: string;
  loginHeading: (client: string) => string;
  username: string;
  password: string;
  signIn: string;
  badCredentials: string;
  throttled: string;
  consentTitle: string;
  consentHeading: (client: string) => string;
  signedInAs: (user: string) => string;
  requestedScopes: string;
  /** Where a client known only by its metadata document sends the user's answer. */
  answerGoesTo: (host: string) => string;
  /** Said when that host is the user's own computer. */
  loopbackApplication: string;
  /** Sentences of the standard scopes, by scope name: a Map, since the names come from config. */
  scopes: ReadonlyMap<string, string>;
  allow: string;
  deny: string;
  expiredTitle: string;
  expiredText: string;
  forbiddenTitle: string;
  forbiddenText: string;
  badRequestTitle: string;
  badRequestText: string;
  unavailableTitle: string;
  unavailableText: string;
  errorTitle: string;
  errorText: string;
  /** The logout pages, which the provider renders around them. */
  logout: LogoutMessages;
  /** The pages of the device authorization grant (RFC 8628). */
  device: DeviceMessages;
}

export interface DeviceMessages {
  title: string;
  heading: string;
  instructions: string;
  userCode: string;
  continue: string;
  /** The code names no request the user may still answer. */
  badUserCode: string;
  /** On the consent page: the code to compare with the device's screen. */
  checkCode: (code: string) => string;
  approvedTitle: string;
  approvedText: string;
  deniedTitle: string;
  deniedText: string;
}

const en: Messages = {
  loginTitle: 'Sign in',
  loginHeading: (client) => `Sign in to continue to ${client}`,
  username: 'Username',
  password: 'Password',
  signIn: 'Sign in',
  badCredentials: 'The username or password is incorrect.',
  throttled: 'Too many failed sign-in attempts. Wait a few minutes, then try again.',
  consentTitle: 'Allow access',
  consentHeading: (client) => `${client} asks for access to your account`,
  signedInAs: (user) => `Signed in as ${user}.`,
  requestedScopes: 'It asks to:',
  answerGoesTo: (host) =>
    `Nobody has checked this application’s name. Your answer goes to ${host}.`,
  loopbackApplication:
    'This application runs on your own computer (localhost): allow it only if you started it yourself just now.',
  scopes: new Map([
    ['openid', 'Know who you are'],
    ['profile', 'See your name and profile'],
    ['email', 'See your email address'],
    ['address', 'See your postal address'],
    ['phone', 'See your phone number'],
    ['id', 'See your identity details'],
    ['offline_access', 'Keep access while you are away'],
  ]),
  allow: 'Allow',
  deny: 'Deny',
  expiredTitle: 'Sign-in request not found',
  expiredText:
    'This sign-in request is unknown, already finished or has expired. Go back to the application and start again.',
  forbiddenTitle: 'Form refused',
  forbiddenText:
    'This form was not sent from the page this browser was given. Go back to the application and start again.',
  badRequestTitle: 'Form not understood',
  badRequestText: 'The form could not be read. Go back to the application and start again.',
  unavailableTitle: 'Temporarily unavailable',
  unavailableText: 'The service is temporarily unavailable. Try again in a moment.',
  errorTitle: 'Something went wrong',
  errorText: 'An unexpected error occurred. Go back to the application and start again.',
  logout: ENGLISH_LOGOUT_MESSAGES,
  device: {
    title: 'Connect a device',
    heading: 'Connect a device',
    instructions: 'Enter the code your device shows.',
    userCode: 'Code',
    continue: 'Continue',
    badUserCode: 'This code is not valid or has expired. Check the code on your device.',
    checkCode: (code) => `Check that your device shows this code: ${code}.`,
    approvedTitle: 'Device connected',
    approvedText: 'You can go back to your device: it continues on its own.',
    deniedTitle: 'Device not connected',
    deniedText: 'The device was not given access to your account. You can close this page.',
  },
};

const fr: Messages = {
  loginTitle: 'Connexion',
  loginHeading: (client) => `Connectez-vous pour continuer vers ${client}`,
  username: 'Nom d’utilisateur',
  password: 'Mot de passe',
  signIn: 'Se connecter',
  badCredentials: 'Le nom d’utilisateur ou le mot de passe est incorrect.',
  throttled:
    'Trop de tentatives de connexion échouées. Patientez quelques minutes, puis réessayez.',
  consentTitle: 'Autoriser l’accès',
  consentHeading: (client) => `${client} demande l’accès à votre compte`,
  signedInAs: (user) => `Connecté en tant que ${user}.`,
  requestedScopes: 'Cette application demande à :',
  answerGoesTo: (host) =>
    `Personne n’a vérifié le nom de cette application. Votre réponse est envoyée à ${host}.`,
  loopbackApplication:
    'Cette application tourne sur votre propre ordinateur (localhost) : ne l’autorisez que si vous venez de la lancer vous-même.',
  scopes: new Map([
    ['openid', 'Savoir qui vous êtes'],
    ['profile', 'Voir votre nom et votre profil'],
    ['email', 'Voir votre adresse e-mail'],
    ['address', 'Voir votre adresse postale'],
    ['phone', 'Voir votre numéro de téléphone'],
    ['id', 'Voir les données de votre identité'],
    ['offline_access', 'Garder l’accès en votre absence'],
  ]),
  allow: 'Autoriser',
  deny: 'Refuser',
  expiredTitle: 'Demande de connexion introuvable',
  expiredText:
    'Cette demande de connexion est inconnue, déjà terminée ou expirée. Retournez à l’application et recommencez.',
  forbiddenTitle: 'Formulaire refusé',
  forbiddenText:
    'Ce formulaire ne vient pas de la page remise à ce navigateur. Retournez à l’application et recommencez.',
  badRequestTitle: 'Formulaire illisible',
  badRequestText: 'Le formulaire n’a pas pu être lu. Retournez à l’application et recommencez.',
  unavailableTitle: 'Service momentanément indisponible',
  unavailableText: 'Le service est momentanément indisponible. Réessayez dans un instant.',
  errorTitle: 'Une erreur est survenue',
  errorText: 'Une erreur inattendue est survenue. Retournez à l’application et recommencez.',
  logout: {
    lang: 'fr',
    confirmTitle: 'Déconnexion',
    confirmHeading: 'Se déconnecter ?',
    confirmAsker: (client) => `${client} demande à vous déconnecter.`,
    confirmQuestion: (issuer) => `Voulez-vous vous déconnecter de ${issuer} ?`,
    signOut: 'Se déconnecter',
    signedOutTitle: 'Déconnecté',
    signedOutText: 'Vous êtes déconnecté.',
    continue: 'Continuer',
    failedTitle: 'Échec de la déconnexion',
    failedText: () =>
      'Cette demande de déconnexion n’est pas valable. Retournez à l’application et recommencez.',
  },
  device: {
    title: 'Connecter un appareil',
    heading: 'Connecter un appareil',
    instructions: 'Saisissez le code affiché par votre appareil.',
    userCode: 'Code',
    continue: 'Continuer',
    badUserCode:
      'Ce code n’est pas valable ou a expiré. Vérifiez le code affiché par votre appareil.',
    checkCode: (code) => `Vérifiez que votre appareil affiche ce code : ${code}.`,
    approvedTitle: 'Appareil connecté',
    approvedText: 'Vous pouvez retourner à votre appareil : il continue tout seul.',
    deniedTitle: 'Appareil non connecté',
    deniedText: 'L’appareil n’a pas reçu l’accès à votre compte. Vous pouvez fermer cette page.',
  },
};

export const MESSAGES: Readonly<Record<Locale, Messages>> = { en, fr };

/**
 * The language tags of an Accept-Language header, in the order the browser sent them (browsers
 * send them by preference); weights are not read.
 */
export function acceptLanguages(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((part) => part.split(';', 1)[0]?.trim() ?? '')
    .filter((tag) => tag !== '' && tag !== '*');
}

/**
 * The first of the `ui_locales` tags (in the order of preference the client gave) whose language
 * has a translation; `fr-CA` is served in `fr`. Default `en`.
 */
export function pickLocale(uiLocales: readonly string[] | undefined): Locale {
  for (const tag of uiLocales ?? []) {
    const language = tag.split('-', 1)[0]?.toLowerCase();
    const locale = LOCALES.find((candidate) => candidate === language);
    if (locale) return locale;
  }
  return LOCALES[0];
}

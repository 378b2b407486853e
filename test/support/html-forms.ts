/**
 * The forms of an HTML page, read the way a browser submits them: method, action resolved
 * against the page's URL, and the fields a submission carries (hidden inputs, and the value of
 * the button pressed). Enough for the pages Gatehouse and the relying parties here serve, which
 * write their markup plainly; not a general HTML parser.
 */

export interface HtmlForm {
  method: 'GET' | 'POST';
  action: URL;
  /** Named inputs with their values, in document order (text inputs as the page fills them). */
  fields: Array<[string, string]>;
  /** Named submit buttons: name, value and label. */
  buttons: Array<{ name: string; value: string; label: string }>;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** HTML character references (named ones of the list above, decimal and hex). */
export function decodeHtml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, reference: string) => {
    if (reference.startsWith('#x') || reference.startsWith('#X')) {
      return String.fromCodePoint(Number.parseInt(reference.slice(2), 16));
    }
    if (reference.startsWith('#')) return String.fromCodePoint(Number(reference.slice(1)));
    return ENTITIES[reference.toLowerCase()] ?? whole;
  });
}

function attributes(tag: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const match of tag.matchAll(/([\w-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g)) {
    const [, name = '', double, single, bare] = match;
    found.set(name.toLowerCase(), decodeHtml(double ?? single ?? bare ?? ''));
  }
  return found;
}

export function parseForms(html: string, pageUrl: string | URL): HtmlForm[] {
  const forms: HtmlForm[] = [];
  for (const [, open = '', body = ''] of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)) {
    const form = attributes(open);
    const fields: HtmlForm['fields'] = [];
    for (const [, tag = ''] of body.matchAll(/<input\b([^>]*)>/gi)) {
      const input = attributes(tag);
      const name = input.get('name');
      const type = input.get('type') ?? 'text';
      if (name && type !== 'submit' && type !== 'button')
        fields.push([name, input.get('value') ?? '']);
    }
    const buttons: HtmlForm['buttons'] = [];
    for (const [, tag = '', label = ''] of body.matchAll(
      /<button\b([^>]*)>([\s\S]*?)<\/button>/gi,
    )) {
      const button = attributes(tag);
      buttons.push({
        name: button.get('name') ?? '',
        value: button.get('value') ?? '',
        label: decodeHtml(label.replace(/<[^>]*>/g, '').trim()),
      });
    }
    forms.push({
      method: (form.get('method') ?? 'get').toUpperCase() === 'POST' ? 'POST' : 'GET',
      action: new URL(form.get('action') || String(pageUrl), pageUrl),
      fields,
      buttons,
    });
  }
  return forms;
}
